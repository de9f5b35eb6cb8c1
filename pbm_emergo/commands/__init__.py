"""The mail commands: one module per command, a registry, and the dispatcher.

The mail worker calls :func:`process` for every stored inbound message, inside the
transaction that handles it, and mails back the replies it returns. Importing this package
stays light (the contract in :mod:`pbm_emergo.commands.api` needs nothing else); the
commands are loaded on first use.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbm_emergo.commands.api import CommandMail, Reply

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from pbm_emergo.config import Config

__all__ = ["CommandMail", "Reply", "mask_command", "process", "scheduled"]


def process(session: Session, mail: CommandMail, config: Config, now: datetime) -> list[Reply]:
    """Run the command(s) of ``mail`` and return the replies to send."""
    from pbm_emergo.commands.dispatcher import dispatch

    return dispatch(session, mail, config, now)


def scheduled(session: Session, config: Config, now: datetime) -> list[Reply]:
    """Timed work the server's scheduler runs every half minute: reminders and forfeits."""
    from pbm_emergo.commands.timers import scheduled as run_timers

    return run_timers(session, config, now)


def mask_command(line: str) -> str:
    """``line`` (a Subject or a command line) with every password replaced by ``********``,
    for anything that shows or stores a command outside the command layer (logs, the
    admin view of the mail queues, notices)."""
    from pbm_emergo.commands.dispatcher import clean_subject, masked

    return masked(clean_subject(line))
