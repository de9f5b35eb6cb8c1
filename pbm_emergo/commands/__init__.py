"""The mail commands: one module per command, a registry, and the dispatcher.

The listener reads every mail it stores once, with :func:`describe`, into a
:class:`~pbm_emergo.commands.text.CommandText`; the mail worker runs that text with
:func:`dispatch` in the unit of work it owns (checking passwords ahead with
:func:`check_passwords_ahead` before it runs a mail inside its write transaction), and keeps
the copy :func:`redact` leaves (see :mod:`pbm_emergo.commands.api`). Importing this package
stays light; the commands are loaded on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from pbm_emergo.app.messages import CommandMail, Reply

if TYPE_CHECKING:
    from pbm_emergo.app.results import Write
    from pbm_emergo.commands.text import CommandText
    from pbm_emergo.config import Config
    from pbm_emergo.db.session import Session

__all__ = [
    "CommandMail", "Reply", "check_passwords_ahead", "describe", "dispatch", "redact",
]


def dispatch(
    session: Session,
    mail: CommandMail,
    config: Config,
    now: datetime,
    *,
    text: CommandText | None = None,
    apply_at_once: bool = False,
) -> tuple[list[Reply], list[Write]]:
    """Run the command(s) of ``mail`` (``text``: as read on receipt) in ``session``: the
    replies, and the writes to store (see :func:`pbm_emergo.commands.dispatcher.dispatch`)."""
    from pbm_emergo.commands.dispatcher import dispatch as run

    return run(session, mail, config, now, text=text, apply_at_once=apply_at_once)


def check_passwords_ahead(
    session: Session, mail: CommandMail, text: CommandText, config: Config, now: datetime
) -> None:
    """Check the passwords of a mail's command lines (their slow hashes) in a reading
    session, before the mail runs inside its write transaction, so that the lock is not held
    while they are hashed."""
    from pbm_emergo.commands.dispatcher import check_passwords_ahead as run

    run(session, mail, text, config, now)


def describe(
    subject: str, body: str, session: Session | None = None, *, quote_at: int | None = None
) -> CommandText:
    """A mail's commands, read once (on receipt): the command lines and how they are run,
    the comment, the boards they name, and the command line as it may be shown (only words
    known not to be secret; ``session`` looks up which are existing userids and boards;
    without it nothing is shown). ``quote_at``: the body's first quoted line, found by the
    mail layer (:func:`pbm_emergo.mail.quotes.quote_start`); only the lines above it are
    read."""
    from pbm_emergo.commands.masking import database_lookup
    from pbm_emergo.commands.text import CommandText

    lookup = database_lookup(session) if session is not None else None
    return CommandText.read(subject, body, lookup, quote_at=quote_at)


def redact(
    text: CommandText, session: Session | None = None
) -> tuple[str, str, Callable[[str], str]]:
    """What is kept of a processed mail: its Subject and the part of its body the server
    read (command lines, or the comment up to quoted text), with every word its command
    lines hide masked (every password among them); and the masking function itself.
    ``session`` finds the existing userids and boards, which are shown; without it, every
    word that is not a keyword, an option or move notation is masked."""
    from pbm_emergo.commands.masking import database_lookup

    return text.redacted(database_lookup(session) if session is not None else None)
