"""The engine's analyses of finished games (emergo analyse).

- analysis_requests: a player's request for the analysis of a finished board, queued for
  the robots' runner, then done; the board's analysis is stored in ``report`` of the
  request that made it, so that asking again is answered from it.

Revision ID: 0009_analysis_requests
Revises: 0008_outbound_charged_to
Create Date: 2026-11-29 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0009_analysis_requests'
down_revision: str | None = '0008_outbound_charged_to'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'analysis_requests',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('board_number', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('address', sa.String(length=320), nullable=False),
        sa.Column('requested_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('done_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('report', sa.JSON(none_as_null=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'done')", name=op.f('ck_analysis_requests_status')
        ),
        sa.ForeignKeyConstraint(
            ['board_number'], ['boards.number'],
            name=op.f('fk_analysis_requests_board_number_boards'), ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['player_id'], ['players.id'],
            name=op.f('fk_analysis_requests_player_id_players'), ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_analysis_requests')),
    )
    with op.batch_alter_table('analysis_requests', schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f('ix_analysis_requests_board_number'), ['board_number'], unique=False
        )
        batch_op.create_index(
            batch_op.f('ix_analysis_requests_player_id_requested_at'),
            ['player_id', 'requested_at'], unique=False,
        )
        batch_op.create_index(
            batch_op.f('ix_analysis_requests_status_requested_at'),
            ['status', 'requested_at'], unique=False,
        )


def downgrade() -> None:
    op.drop_table('analysis_requests')
