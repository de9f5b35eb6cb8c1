"""A player's daily digest.

- players.digest_hour: ``notify digest``: the hour (0-23, of the player's time zone) of their
  daily digest of the boards waiting for them; NULL: none (a board mail a change).
- players.last_digest_at: when the last digest was sent, or the digest turned on.

Revision ID: 0016_clock_digest
Revises: 0015_clock_glicko2
Create Date: 2026-12-01 14:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0016_clock_digest'
down_revision: str | None = '0015_clock_glicko2'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('digest_hour', sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column('last_digest_at', sa.DateTime(timezone=True), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('last_digest_at')
        batch_op.drop_column('digest_hour')
