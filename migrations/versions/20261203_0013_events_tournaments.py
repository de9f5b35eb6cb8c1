"""Leagues and tournaments.

- events: a league season or a tournament (round robin, Swiss, knock-out), its terms and
  where it stands;
- event_entries: the players in an event, their seeds and divisions, and withdrawals;
- event_rounds: when each round opened and ended;
- event_pairings: the games of each round (a bye has no black player), their boards and
  results;
- boards.event_id, boards.event_round: the event and round a board is a game of.

Revision ID: 0013_events_tournaments
Revises: 0012_games_submitted_moves
Create Date: 2026-11-28 10:44:44.317250

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0013_events_tournaments"
down_revision: str | None = "0012_games_submitted_moves"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("max_players", sa.Integer(), nullable=True),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("nag_days", sa.Integer(), nullable=False),
        sa.Column("forfeit_days", sa.Integer(), nullable=False),
        sa.Column("total_days", sa.Integer(), nullable=True),
        sa.Column("robots", sa.String(length=8), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=True),
        sa.Column("join_password_hash", sa.String(length=255), nullable=True),
        sa.Column("league", sa.String(length=32), nullable=True),
        sa.Column("season", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "format IN ('round-robin', 'swiss', 'knockout', 'league')",
            name=op.f("ck_events_format"),
        ),
        sa.CheckConstraint("robots IN ('fill', 'none')", name=op.f("ck_events_robots")),
        sa.CheckConstraint(
            "status IN ('open', 'running', 'finished', 'cancelled')", name=op.f("ck_events_status")
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["players.id"],
            name=op.f("fk_events_owner_id_players"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("name", name=op.f("uq_events_name")),
    )
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_events_status"), ["status"], unique=False)

    op.create_table(
        "event_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("division", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("withdrawn_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_event_entries_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_event_entries_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_entries")),
        sa.UniqueConstraint(
            "event_id", "player_id", name=op.f("uq_event_entries_event_id_player_id")
        ),
    )
    op.create_table(
        "event_rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_event_rounds_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_rounds")),
        sa.UniqueConstraint("event_id", "number", name=op.f("uq_event_rounds_event_id_number")),
    )
    op.create_table(
        "event_pairings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("division", sa.Integer(), nullable=False),
        sa.Column("game", sa.Integer(), nullable=False),
        sa.Column("white_id", sa.Integer(), nullable=False),
        sa.Column("black_id", sa.Integer(), nullable=True),
        sa.Column("board_number", sa.Integer(), nullable=True),
        sa.Column("result", sa.String(length=5), nullable=True),
        sa.CheckConstraint(
            "result IS NULL OR result IN ('white', 'black', 'draw', 'bye')",
            name=op.f("ck_event_pairings_result"),
        ),
        sa.ForeignKeyConstraint(
            ["black_id"],
            ["players.id"],
            name=op.f("fk_event_pairings_black_id_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["board_number"],
            ["boards.number"],
            name=op.f("fk_event_pairings_board_number_boards"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_event_pairings_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["white_id"],
            ["players.id"],
            name=op.f("fk_event_pairings_white_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_pairings")),
    )
    with op.batch_alter_table("event_pairings", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_event_pairings_board_number"), ["board_number"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_event_pairings_event_id_round_number"),
            ["event_id", "round_number"],
            unique=False,
        )

    with op.batch_alter_table("boards", schema=None) as batch_op:
        batch_op.add_column(sa.Column("event_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("event_round", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_boards_event_id"), ["event_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_boards_event_id_events"),
            "events",
            ["event_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("boards", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_boards_event_id_events"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_boards_event_id"))
        batch_op.drop_column("event_round")
        batch_op.drop_column("event_id")

    with op.batch_alter_table("event_pairings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_event_pairings_event_id_round_number"))
        batch_op.drop_index(batch_op.f("ix_event_pairings_board_number"))

    op.drop_table("event_pairings")
    op.drop_table("event_rounds")
    op.drop_table("event_entries")
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_events_status"))

    op.drop_table("events")
