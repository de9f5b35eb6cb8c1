"""The language of a player's replies.

- players.language: ``en``, ``nl``, ``de`` or ``fr`` (``language USERID PASSWORD nl``, or
  signup's ``language=``); NULL until chosen, read as English.

Revision ID: 0019_i18n_language
Revises: 0018_clocks_time_bank
Create Date: 2026-12-06 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0019_i18n_language'
down_revision: str | None = '0018_clocks_time_bank'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('language', sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('language')
