"""Submitted moves (emergo submit, emergo confirm).

- submitted_moves: a move a player submitted, played only when they confirm it; one per
  player and board, dropped when any move is played or taken back on the board after it.

Revision ID: 0012_games_submitted_moves
Revises: 0011_account_self_service
Create Date: 2026-12-01 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0012_games_submitted_moves'
down_revision: str | None = '0011_account_self_service'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'submitted_moves',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('board_number', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('notation', sa.String(length=128), nullable=False),
        sa.Column('comment', sa.Text(), nullable=True),
        sa.Column('last_move_id', sa.Integer(), nullable=False),
        sa.Column('submitted_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['board_number'], ['boards.number'],
            name=op.f('fk_submitted_moves_board_number_boards'), ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['player_id'], ['players.id'],
            name=op.f('fk_submitted_moves_player_id_players'), ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_submitted_moves')),
        sa.UniqueConstraint(
            'board_number', 'player_id', name=op.f('uq_submitted_moves_board_number_player_id')
        ),
    )


def downgrade() -> None:
    op.drop_table('submitted_moves')
