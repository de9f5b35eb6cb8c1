"""A player's time zone.

- players.timezone: the IANA time zone (``Europe/Amsterdam``) the player reads the times of
  their reminders and losses on time in; ``UTC`` for everyone until they choose one.

Revision ID: 0014_clock_timezone
Revises: 0013_events_tournaments
Create Date: 2026-12-01 12:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_clock_timezone"
down_revision: str | None = "0013_events_tournaments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("timezone", sa.String(length=64), server_default="UTC", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("timezone")
