"""Mail to others charged to an account.

- outbound_messages.charged_account: the account (player id) whose logged-in command caused
  this mail to someone else, counted against that account's hourly budget of mails to other
  people whatever address the command came from. NULL: no command logged in, or a mail not
  charged at all. No foreign key: a deleted account's count just runs out within the hour.

Revision ID: 0010_outbound_charged_account
Revises: 0009_analysis_requests
Create Date: 2026-11-30 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010_outbound_charged_account'
down_revision: str | None = '0009_analysis_requests'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('outbound_messages', schema=None) as batch_op:
        batch_op.add_column(sa.Column('charged_account', sa.Integer(), nullable=True))
        batch_op.create_index(
            batch_op.f('ix_outbound_messages_charged_account_created_at'),
            ['charged_account', 'created_at'], unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table('outbound_messages', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_outbound_messages_charged_account_created_at'))
        batch_op.drop_column('charged_account')
