"""The mail commands: one module per command, a registry, and the dispatcher.

The mail worker calls :func:`handle` for every stored inbound message that may be answered
(see :mod:`pbm_emergo.commands.api` for how it runs), and the listener :func:`describe` for
every message it stores. Importing this package stays light; the commands are loaded on
first use.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbm_emergo.game.messages import CommandMail, Reply

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from pbm_emergo.commands.dispatcher import Described
    from pbm_emergo.config import Config

__all__ = ["CommandMail", "Reply", "describe", "handle", "redact", "scheduled"]


def handle(
    factory: sessionmaker[Session],
    mail: CommandMail,
    config: Config,
    now: datetime,
    *,
    outside: Callable[[list[Reply]], Any] | None = None,
    inside: Callable[[Session, Any], None] | None = None,
) -> list[Reply]:
    """Run the command(s) of ``mail``, store what they change, return the replies."""
    from pbm_emergo.commands.dispatcher import handle as run

    return run(factory, mail, config, now, outside=outside, inside=inside)


def scheduled(session: Session, config: Config, now: datetime) -> list[Reply]:
    """Timed work the server's scheduler runs every half minute: reminders and forfeits."""
    from pbm_emergo.game.timers import scheduled as run_timers

    return run_timers(session, config, now)


def describe(subject: str, body: str, session: Session | None = None) -> Described:
    """What a mail is: its command line as it may be shown (only words known not to be
    secret; ``session`` looks up which are existing userids and boards), and the boards it
    names."""
    from pbm_emergo.commands.dispatcher import describe as run
    from pbm_emergo.commands.masking import database_lookup

    return run(subject, body, database_lookup(session) if session is not None else None)


def redact(
    subject: str, body: str, session: Session | None = None
) -> tuple[str, str, Callable[[str], str]]:
    """What is kept of a processed mail: its Subject and the part of its body the server
    read (command lines, or the comment up to quoted text), with every word its command
    lines hide masked (every password among them); and the masking function itself.
    ``session`` finds the existing userids and boards, which are shown; without it, every
    word that is not a keyword, an option or move notation is masked."""
    from pbm_emergo.commands.dispatcher import redact as run

    return run(subject, body, session)
