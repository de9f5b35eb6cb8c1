"""The lines of a ``multiple`` mail that have run.

- inbound_lines: one row a line, stored in the line's own write transaction (what the
  mail's report shows of it, what it used of the mail's budgets); removed when the mail is
  marked done.

Revision ID: 0021_inbound_lines
Revises: 0020_event_news
Create Date: 2026-12-09 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0021_inbound_lines'
down_revision: str | None = '0020_event_news'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "inbound_lines",
        sa.Column("inbound_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("line", sa.Text(), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("summary_said", sa.Text(), nullable=True),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("mails_charged", sa.Integer(), nullable=False),
        sa.Column("accounts_charged", sa.JSON(), nullable=False),
        sa.Column("password_failures", sa.Integer(), nullable=False),
        sa.Column("notified", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_inbound_lines_inbound_id_inbound_messages"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("inbound_id", "number", name=op.f("pk_inbound_lines")),
    )


def downgrade() -> None:
    op.drop_table("inbound_lines")
