"""The bytes of an outbox mail in a table of their own.

- outbound_texts: one row a mail of outbound_messages (same id), its bytes; the column
  outbound_messages.raw goes. The claim and the record of a send update the mail's row, and
  SQLite writes a row anew at each update, its text included.

Revision ID: 0022_outbound_texts
Revises: 0021_inbound_lines
Create Date: 2026-12-10 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0022_outbound_texts'
down_revision: str | None = '0021_inbound_lines'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "outbound_texts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["id"],
            ["outbound_messages.id"],
            name=op.f("fk_outbound_texts_id_outbound_messages"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbound_texts")),
    )
    op.execute("INSERT INTO outbound_texts (id, raw) SELECT id, raw FROM outbound_messages")
    with op.batch_alter_table("outbound_messages", schema=None) as batch_op:
        batch_op.drop_column("raw")


def downgrade() -> None:
    with op.batch_alter_table("outbound_messages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("raw", sa.LargeBinary(), nullable=True))
    op.execute(
        "UPDATE outbound_messages SET raw = (SELECT raw FROM outbound_texts"
        " WHERE outbound_texts.id = outbound_messages.id)"
    )
    op.get_bind().execute(
        sa.text("UPDATE outbound_messages SET raw = :empty WHERE raw IS NULL"), {"empty": b""}
    )
    with op.batch_alter_table("outbound_messages", schema=None) as batch_op:
        batch_op.alter_column("raw", existing_type=sa.LargeBinary(), nullable=False)
    op.drop_table("outbound_texts")
