"""Wrong passwords counted per sender; addresses confirmed by their owner before use.

- login_failures: one row per player *and sender* (``sender_key``: the sender's address in
  lower case, or ``*`` for every address not registered for the player, counted together),
  and ``notified_at`` (when the player was last told their userid is under attack). The
  primary key changes, so the table is made anew: its rows are counts of the last hour and
  locks of at most an hour, and are dropped (on downgrade too).
- address_confirmations: addresses waiting for ``confirm CODE`` (only a hash of the code).

Revision ID: 0003_accounts
Revises: 0002
Create Date: 2026-11-24 10:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003_accounts'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _login_failures(*, per_sender: bool) -> None:
    columns = [
        sa.Column('player_id', sa.Integer(), nullable=False),
        *([sa.Column('sender_key', sa.String(length=320), nullable=False)] if per_sender else []),
        sa.Column('count', sa.Integer(), nullable=False),
        sa.Column('window_start', sa.DateTime(timezone=True), nullable=False),
        sa.Column('last_failure_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('locked_until', sa.DateTime(timezone=True), nullable=True),
        *([sa.Column('notified_at', sa.DateTime(timezone=True), nullable=True)]
          if per_sender else []),
    ]
    key = ['player_id', 'sender_key'] if per_sender else ['player_id']
    op.create_table('login_failures',
    *columns,
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_login_failures_player_id_players'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint(*key, name=op.f('pk_login_failures'))
    )


def upgrade() -> None:
    op.drop_table('login_failures')
    _login_failures(per_sender=True)
    op.create_table('address_confirmations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('address', sa.String(length=320), nullable=False),
    sa.Column('address_key', sa.String(length=320), nullable=False),
    sa.Column('code_hash', sa.String(length=64), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('replaces', sa.Boolean(), nullable=False),
    sa.Column('requested_by', sa.String(length=320), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_address_confirmations_player_id_players'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_address_confirmations')),
    sa.UniqueConstraint('code_hash', name=op.f('uq_address_confirmations_code_hash'))
    )
    with op.batch_alter_table('address_confirmations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_address_confirmations_address_key'), ['address_key'], unique=False)
        batch_op.create_index(batch_op.f('ix_address_confirmations_player_id'), ['player_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('address_confirmations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_address_confirmations_player_id'))
        batch_op.drop_index(batch_op.f('ix_address_confirmations_address_key'))
    op.drop_table('address_confirmations')
    op.drop_table('login_failures')
    _login_failures(per_sender=False)
