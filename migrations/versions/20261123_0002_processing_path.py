"""The rebuilt processing path: repetition keys on boards, receipt facts on inbound mail.

- boards.repetition: the keys of the positions that can still recur, so that a move resumes
  the game from the board row instead of replaying it (NULL on older boards: replayed once).
- inbound_messages.sender / not_answered: decided once on receipt.
- inbound_boards: every board a mail's commands name (a ``multiple`` mail may name several),
  for handling one board's mail in arrival order.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 13:30:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.add_column(sa.Column('repetition', sa.Text(), nullable=True))
    with op.batch_alter_table('inbound_messages', schema=None) as batch_op:
        batch_op.add_column(sa.Column('sender', sa.String(length=320), nullable=True))
        batch_op.add_column(sa.Column('not_answered', sa.String(length=200), nullable=True))
    op.create_table('inbound_boards',
    sa.Column('inbound_id', sa.Integer(), nullable=False),
    sa.Column('board_number', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['inbound_id'], ['inbound_messages.id'], name=op.f('fk_inbound_boards_inbound_id_inbound_messages'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('inbound_id', 'board_number', name=op.f('pk_inbound_boards'))
    )
    with op.batch_alter_table('inbound_boards', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_inbound_boards_board_number_inbound_id'), ['board_number', 'inbound_id'], unique=False)
    # Mail already stored names its board in board_number.
    op.execute(
        "INSERT INTO inbound_boards (inbound_id, board_number) "
        "SELECT id, board_number FROM inbound_messages WHERE board_number IS NOT NULL"
    )


def downgrade() -> None:
    with op.batch_alter_table('inbound_boards', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_inbound_boards_board_number_inbound_id'))
    op.drop_table('inbound_boards')
    with op.batch_alter_table('inbound_messages', schema=None) as batch_op:
        batch_op.drop_column('not_answered')
        batch_op.drop_column('sender')
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.drop_column('repetition')
