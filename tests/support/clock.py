"""A clock that the test moves: reminders, forfeits and retries are days or minutes apart."""

from __future__ import annotations

from datetime import UTC, datetime

START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


class Clock:
    """Stands still at ``now`` (``START`` unless given) until the test moves it
    (``clock.now += timedelta(days=8)``); pass it where the code takes a ``clock``."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now
