"""Helpers for the command tests: mailing commands straight to `handle`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.commands import CommandMail, Reply, handle
from pbm_emergo.config import Config

START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


class Mailer:
    """Sends command mails straight to `handle` (which reads, then writes in its own
    transaction), one minute
    apart on a simulated clock."""

    def __init__(self, factory: sessionmaker[Session], config: Config) -> None:
        self.factory = factory
        self.config = config
        self.now = START
        self.count = 0

    def send(self, subject: str, body: str = "", sender: str = "alice@example.org") -> list[Reply]:
        self.count += 1
        self.now += timedelta(minutes=1)
        mail = CommandMail(
            sender=sender, subject=subject, body=body, message_id=f"<m{self.count}@example.org>"
        )
        return handle(self.factory, mail, self.config, self.now)

    def one(self, subject: str, body: str = "", sender: str = "alice@example.org") -> Reply:
        """Send and expect exactly one reply."""
        replies = self.send(subject, body, sender)
        assert len(replies) == 1, [(r.to, r.subject) for r in replies]
        return replies[0]
