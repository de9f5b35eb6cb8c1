"""The contract between the mail layer and the command layer.

The mail layer parses a stored message into a :class:`CommandMail` and hands it to a
:class:`CommandProcessor` (in production :func:`pbm_emergo.commands.handle`), which runs
the commands and gives back every :class:`Reply`; the mail layer turns them into mail in the
outbox. Neither side knows how the other works. The types live in the neutral module
:mod:`pbm_emergo.game.messages`, which both layers import.

How a mail is handled (:func:`pbm_emergo.commands.handle`): the commands run against a
reading session (no write lock: parsing, passwords, loading the board, checking the move,
rendering the replies) and return the writes they want; then one short write transaction
applies them, re-checking what they relied on, together with the caller's own writes
(``inside``: queue the replies, mark the mail done). When a re-check fails
(:class:`~pbm_emergo.db.errors.Conflict`) everything starts over from a fresh read.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from pbm_emergo.game.messages import CommandMail, Reply
from pbm_emergo.game.unit import Write

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from pbm_emergo.config import Config



class CommandProcessor(Protocol):
    """Runs the commands of one mail: ``outside`` is called with the replies before the write
    transaction (build the mails), ``inside`` within it (store them, mark the mail done)."""

    def __call__(
        self,
        factory: sessionmaker[Session],
        mail: CommandMail,
        config: Config,
        now: datetime,
        *,
        outside: Callable[[list[Reply]], Any] | None = None,
        inside: Callable[[Session, Any], None] | None = None,
    ) -> list[Reply]: ...


class ScheduledTask(Protocol):
    """Timed work (reminders, timeouts): the server's scheduler calls
    ``pbm_emergo.commands.scheduled`` every 30 seconds inside one transaction, and mails
    the replies it returns."""

    def __call__(self, session: Session, config: Config, now: datetime) -> list[Reply]: ...


__all__ = ["CommandMail", "CommandProcessor", "Reply", "ScheduledTask", "Write"]
