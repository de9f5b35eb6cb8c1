"""Moves in advance and time.

- queued_moves.if_move: the opponent's move a conditional queue item answers (NULL: any).
- boards.queued: whether the board has queued moves, so that a move looks for them only then.
- moves.autoplayed: ``queued`` or ``forced`` when the server played the move for its player.
- players.autoplay: ``emergo autoplay on`` (the only legal move is played for the player).
- boards.total_days: ``--totaltime=DAYS``, each player's thinking time over the game.
- vacations: every vacation (``vacation userid password DAYS``), for the yearly allowance and
  for the clocks, which stop while it lasts.

Revision ID: 0006_queue_time
Revises: 0005_seek_notify
Create Date: 2026-11-26 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006_queue_time'
down_revision: str | None = '0005_seek_notify'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('queued_moves', schema=None) as batch_op:
        batch_op.add_column(sa.Column('if_move', sa.String(length=128), nullable=True))
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.add_column(sa.Column('total_days', sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column('queued', sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    with op.batch_alter_table('moves', schema=None) as batch_op:
        batch_op.add_column(sa.Column('autoplayed', sa.String(length=8), nullable=True))
        batch_op.create_check_constraint(
            op.f('ck_moves_autoplayed'), "autoplayed IS NULL OR autoplayed IN ('queued', 'forced')"
        )
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('autoplay', sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.create_table('vacations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('starts_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('ends_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('days', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_vacations_player_id_players'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_vacations'))
    )
    with op.batch_alter_table('vacations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_vacations_player_id_ends_at'), ['player_id', 'ends_at'], unique=False)
    # Boards that have queued moves already (none are made before this revision, but a
    # database written by hand might have some).
    op.execute(
        "UPDATE boards SET queued = TRUE WHERE number IN (SELECT board_number FROM queued_moves)"
    )


def downgrade() -> None:
    with op.batch_alter_table('vacations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_vacations_player_id_ends_at'))
    op.drop_table('vacations')
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('autoplay')
    with op.batch_alter_table('moves', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_moves_autoplayed'), type_='check')
        batch_op.drop_column('autoplayed')
    with op.batch_alter_table('boards', schema=None) as batch_op:
        batch_op.drop_column('queued')
        batch_op.drop_column('total_days')
    with op.batch_alter_table('queued_moves', schema=None) as batch_op:
        batch_op.drop_column('if_move')
