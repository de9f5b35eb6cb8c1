"""What a mail is, parsed once on receipt.

- inbound_messages.parsed: the parse of the mail the listener made on receipt (Subject,
  body text, References, the sender's DMARC/SPF verdict), so that the worker does not parse
  it again. It holds what the raw mail holds (passwords included) and goes with it: emptied
  when the mail is processed (its raw text is then a redacted copy) and when the raw text
  expires. NULL: parse the raw mail (rows stored before this revision).

Revision ID: 0007_inbound_parsed
Revises: 0006_queue_time
Create Date: 2026-11-27 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0007_inbound_parsed'
down_revision: str | None = '0006_queue_time'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('inbound_messages', schema=None) as batch_op:
        batch_op.add_column(sa.Column('parsed', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('inbound_messages', schema=None) as batch_op:
        batch_op.drop_column('parsed')
