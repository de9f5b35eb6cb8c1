"""The contract between the mail layer and the command layer.

The mail layer parses a stored message into a :class:`CommandMail`, hands it to a
:class:`CommandProcessor` (in production ``pbm_emergo.commands.process``) and turns every
:class:`Reply` it gets back into a mail in the outbox. Neither side knows how the other works.
The optional :class:`ScheduledTask` (``pbm_emergo.commands.scheduled``) is timed work.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from pbm_emergo.config import Config


@dataclass(frozen=True)
class CommandMail:
    """What the mail layer hands to the command layer."""

    sender: str  # the address to answer (From, else the envelope sender), lower-cased
    subject: str  # decoded Subject, Re:/Fwd:/AW: prefixes stripped, whitespace collapsed
    body: str  # first text/plain part (HTML-only mail converted to text), decoded
    message_id: str


@dataclass(frozen=True)
class Reply:
    """What the command layer returns; the mail layer builds the message from it."""

    to: str  # one address
    subject: str  # plain text; the mail layer sanitises it (no CR/LF, length-limited)
    body: str
    thread: str | None = None  # e.g. "board-101": replies of one board share References


class CommandProcessor(Protocol):
    """Runs the commands of one mail inside the caller's transaction."""

    def __call__(
        self, session: Session, mail: CommandMail, config: Config, now: datetime
    ) -> list[Reply]: ...


class ScheduledTask(Protocol):
    """Timed work (reminders, timeouts): the server's scheduler calls
    ``pbm_emergo.commands.scheduled`` every 30 seconds, if the command layer defines it,
    inside one transaction, and mails the replies it returns."""

    def __call__(self, session: Session, config: Config, now: datetime) -> list[Reply]: ...
