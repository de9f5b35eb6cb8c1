"""A board's capped time bank and weekend pause; the end of a vacation told.

- boards.timebank_hours, boards.increment_hours: ``-timebank=`` and ``-increment=``, each
  player's capped time bank and what a move adds to it (NULL: no time bank).
- boards.weekends_off: ``-weekends``, the clocks stop on Saturdays and Sundays in each
  player's time zone.
- events.timebank_hours, events.increment_hours, events.weekends_off: the same for the
  games of an event (``admin event create --timebank --increment --weekends``).
- vacations.end_told: the player was told that the vacation ended (the vacations stored
  before it count as told: no mail about old news).

Revision ID: 0018_clocks_time_bank
Revises: 0017_text_board_style
Create Date: 2026-12-06 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0018_clocks_time_bank'
down_revision: str | None = '0017_text_board_style'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.add_column(sa.Column('timebank_hours', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('increment_hours', sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column('weekends_off', sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.add_column(sa.Column('timebank_hours', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('increment_hours', sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column('weekends_off', sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    with op.batch_alter_table('vacations', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('end_told', sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    vacations = sa.table('vacations', sa.column('end_told', sa.Boolean()))
    op.execute(vacations.update().values(end_told=True))


def downgrade() -> None:
    with op.batch_alter_table('vacations', schema=None) as batch_op:
        batch_op.drop_column('end_told')
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.drop_column('weekends_off')
        batch_op.drop_column('increment_hours')
        batch_op.drop_column('timebank_hours')
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.drop_column('weekends_off')
        batch_op.drop_column('increment_hours')
        batch_op.drop_column('timebank_hours')
