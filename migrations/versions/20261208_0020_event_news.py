"""What an event still has to tell its players.

- event_news: a round's new board, the event cancelled, its final table, a league's next
  season; stored with the change that makes it news, removed when its mails are queued.

Revision ID: 0020_event_news
Revises: 0019_i18n_language
Create Date: 2026-12-08 12:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0020_event_news'
down_revision: str | None = '0019_i18n_language'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "event_news",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("board_number", sa.Integer(), nullable=True),
        sa.Column("round_number", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('board', 'cancelled', 'finished', 'season')",
            name=op.f("ck_event_news_kind"),
        ),
        sa.ForeignKeyConstraint(
            ["board_number"],
            ["boards.number"],
            name=op.f("fk_event_news_board_number_boards"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_event_news_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_news")),
    )


def downgrade() -> None:
    op.drop_table("event_news")
