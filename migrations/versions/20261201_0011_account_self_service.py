"""What players do for themselves: a forgotten password, blocks, private notes.

- password_resets: a one-time code (its hash) that sets a new password (forgot, reset),
  valid for a day, used once.
- blocks: a player (player_id) refuses the challenges, messages and chat of another
  (blocked_id).
- game_notes: a player's private notes on a board (emergo note), shown only to them.

Revision ID: 0011_account_self_service
Revises: 0010_outbound_charged_account
Create Date: 2026-12-01 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0011_account_self_service'
down_revision: str | None = '0010_outbound_charged_account'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('blocks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('blocked_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['blocked_id'], ['players.id'], name=op.f('fk_blocks_blocked_id_players'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_blocks_player_id_players'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_blocks')),
    sa.UniqueConstraint('player_id', 'blocked_id', name=op.f('uq_blocks_player_id_blocked_id'))
    )
    with op.batch_alter_table('blocks', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_blocks_blocked_id'), ['blocked_id'], unique=False)

    op.create_table('password_resets',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('code_hash', sa.String(length=64), nullable=False),
    sa.Column('requested_by', sa.String(length=320), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_password_resets_player_id_players'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_password_resets')),
    sa.UniqueConstraint('code_hash', name=op.f('uq_password_resets_code_hash'))
    )
    with op.batch_alter_table('password_resets', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_password_resets_player_id_created_at'), ['player_id', 'created_at'], unique=False)

    op.create_table('game_notes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('board_number', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('ply', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['board_number'], ['boards.number'], name=op.f('fk_game_notes_board_number_boards'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_game_notes_player_id_players'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_game_notes'))
    )
    with op.batch_alter_table('game_notes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_game_notes_board_number_player_id'), ['board_number', 'player_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_game_notes_player_id'), ['player_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('game_notes', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_notes_player_id'))
        batch_op.drop_index(batch_op.f('ix_game_notes_board_number_player_id'))

    op.drop_table('game_notes')
    with op.batch_alter_table('password_resets', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_password_resets_player_id_created_at'))

    op.drop_table('password_resets')
    with op.batch_alter_table('blocks', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_blocks_blocked_id'))

    op.drop_table('blocks')
