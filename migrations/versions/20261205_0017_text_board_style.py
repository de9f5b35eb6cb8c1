"""How a player's board mails show the position.

- players.board_style: ``diagram`` (the ASCII diamond, the default) or ``list`` (the
  position in words, row by row, for screen readers): ``board USERID PASSWORD list``.

Revision ID: 0017_text_board_style
Revises: 0016_clock_digest
Create Date: 2026-12-01 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0017_text_board_style'
down_revision: str | None = '0016_clock_digest'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                'board_style', sa.String(length=16), server_default='diagram', nullable=False
            )
        )


def downgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('board_style')
