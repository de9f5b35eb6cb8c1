"""Seeking and refusing opponents; final board mails of finished games.

- players.seeking: how many more games the player seeks (``emergo seek``), 0 for none.
- players.refuses_challenges, players.board_limit: ``emergo reject`` (refuse every
  challenge) and ``emergo limit N`` (refuse once N boards are active); the defaults accept
  every challenge, as before.
- notifications: ``emergo notify``, the final board mail of one board or (board_number
  NULL) of every finished game.

Revision ID: 0005_seek_notify
Revises: 0004_robots
Create Date: 2026-11-26 09:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0005_seek_notify'
down_revision: str | None = '0004_robots'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seeking', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('refuses_challenges', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column('board_limit', sa.Integer(), nullable=True))
    op.create_table('notifications',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('board_number', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['board_number'], ['boards.number'], name=op.f('fk_notifications_board_number_boards'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_notifications_player_id_players'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_notifications')),
    sa.UniqueConstraint('player_id', 'board_number', name=op.f('uq_notifications_player_id_board_number'))
    )
    with op.batch_alter_table('notifications', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_notifications_board_number'), ['board_number'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('notifications', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_notifications_board_number'))
    op.drop_table('notifications')
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('board_limit')
        batch_op.drop_column('refuses_challenges')
        batch_op.drop_column('seeking')
