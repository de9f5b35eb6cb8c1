"""Who caused a mail to someone else.

- outbound_messages.charged_to: the sender whose mail caused this mail to another address
  (a challenge's first board mail, a message, a chat, a confirmation code ...), counted
  against that sender's hourly budget of mails to other people. NULL: a mail the recipient
  asked for (an answer to their own mail, a board mail of their own game under way, a
  subscription) or one the server sent on its own (reminders).
- outbound_messages.secret: the mail carries a secret (a password an operator reset): its
  text is replaced by a note once it is sent or given up.

Revision ID: 0008_outbound_charged_to
Revises: 0007_inbound_parsed
Create Date: 2026-11-28 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0008_outbound_charged_to'
down_revision: str | None = '0007_inbound_parsed'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('outbound_messages', schema=None) as batch_op:
        batch_op.add_column(sa.Column('charged_to', sa.String(length=320), nullable=True))
        batch_op.add_column(
            sa.Column('secret', sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.create_index(
            batch_op.f('ix_outbound_messages_charged_to_created_at'),
            ['charged_to', 'created_at'], unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table('outbound_messages', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_outbound_messages_charged_to_created_at'))
        batch_op.drop_column('secret')
        batch_op.drop_column('charged_to')
