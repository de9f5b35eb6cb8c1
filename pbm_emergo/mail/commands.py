"""The contract between the mail layer and the commands: the command layer parses, the shell
runs.

The listener reads a mail's commands once, on receipt, into a
:class:`~pbm_emergo.commands.text.CommandText` (:func:`describe`: the command layer reads
them, the data layer finds which of their words exist) and stores it with the mail. The mail
worker owns the unit of work, as GNU Mailman's runner owns ``_dispose``: it opens a reading
session (no write lock) and hands it, the :class:`CommandMail` and its text to a
:class:`CommandProcessor` (in production :func:`dispatch`: the shell's
:func:`pbm_emergo.app.dispatcher.dispatch` with the command layer's
:data:`~pbm_emergo.commands.language.LANGUAGE`), which makes each command line a request
and runs it (passwords, loading the board, checking the move, rendering the replies) and
gives back every :class:`Reply` and the writes it wants; the worker builds the reply mails,
then applies the writes in one short write transaction, re-checking what they relied on,
with its own (queue the replies, mark the mail done). When a re-check fails
(:class:`~pbm_emergo.db.errors.Conflict`) it starts over from a fresh read. The lines of a
``multiple`` mail go the same way one by one (:func:`start_lines`, :func:`next_line`).
Nothing calls back into the mail layer. The types the two share live in
:mod:`pbm_emergo.app.messages`. Importing this module stays light (the listener only
describes mails): the shell's dispatcher is loaded on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.app.secrets import Secrets
from pbm_emergo.commands.language import LANGUAGE
from pbm_emergo.commands.masking import candidates, mask_line
from pbm_emergo.commands.text import CommandText
from pbm_emergo.db.vocabulary import database_lookup

if TYPE_CHECKING:
    from pbm_emergo.app.lines import LinesSoFar, NextLine
    from pbm_emergo.app.results import Write
    from pbm_emergo.config import Config
    from pbm_emergo.db.inbound_lines import LineRun
    from pbm_emergo.db.session import Session


class CommandProcessor(Protocol):
    """Runs the commands of one mail (``text``: as read on receipt) in ``session``: the
    replies, and the writes to store. ``board_number``: a number set aside for the board a
    challenge makes (:mod:`pbm_emergo.mail.answering`)."""

    def __call__(
        self,
        session: Session,
        mail: CommandMail,
        config: Config,
        now: datetime,
        *,
        text: CommandText,
        board_number: int | None = None,
    ) -> tuple[list[Reply], list[Write]]: ...


def dispatch(
    session: Session,
    mail: CommandMail,
    config: Config,
    now: datetime,
    *,
    text: CommandText | None = None,
    board_number: int | None = None,
) -> tuple[list[Reply], list[Write]]:
    """Run the command(s) of ``mail`` (``text``: as read on receipt; read here from the
    mail when not given) in ``session``: the replies, and the writes to store (see
    :func:`pbm_emergo.app.dispatcher.dispatch`; a ``multiple`` mail's lines all in
    ``session``: :func:`pbm_emergo.app.lines.run_all`; the worker runs them one by one,
    :func:`start_lines`, :func:`next_line`)."""
    from pbm_emergo.app import dispatcher, lines

    if text is None:
        text = CommandText.read(mail.subject, mail.body)
    if text.multiple:
        return lines.run_all(session, mail, config, now, language=LANGUAGE, text=text)
    return dispatcher.dispatch(
        session, mail, config, now, language=LANGUAGE, text=text, board_number=board_number
    )


def start_lines(
    session: Session, mail: CommandMail, text: CommandText, runs: Sequence[LineRun] = ()
) -> LinesSoFar:
    """Where the lines of a ``multiple`` mail start, after ``runs`` (the lines stored before
    by a worker that did not finish the mail): :func:`pbm_emergo.app.lines.start_lines`."""
    from pbm_emergo.app import lines

    return lines.start_lines(session, mail, language=LANGUAGE, text=text, runs=runs)


def next_line(
    session: Session, mail: CommandMail, config: Config, now: datetime, *,
    text: CommandText, so_far: LinesSoFar, board_number: int | None = None,
) -> NextLine:
    """Run the next line of a ``multiple`` mail: :func:`pbm_emergo.app.lines.next_line`."""
    from pbm_emergo.app import lines

    return lines.next_line(
        session, mail, config, now, language=LANGUAGE, text=text, so_far=so_far,
        board_number=board_number,
    )


def describe(
    subject: str, body: str, session: Session | None = None, *, quote_at: int | None = None
) -> CommandText:
    """A mail's commands, read once (on receipt): the command lines and how they are run,
    the comment, the boards they name, and the command line as it may be shown (only words
    known not to be secret; ``session`` looks up which are existing userids and boards;
    without it nothing is shown). ``quote_at``: the body's first quoted line, found by the
    mail layer (:func:`pbm_emergo.mail.quotes.quote_start`); only the lines above it are
    read."""
    lookup = database_lookup(session, candidates) if session is not None else None
    return CommandText.read(subject, body, lookup, quote_at=quote_at)


def shown_after(session: Session, text: CommandText) -> str | None:
    """The mail's command line as it may be shown once its commands ran: masked as on
    receipt (:func:`pbm_emergo.commands.masking.mask_line`), with what exists now, so that a
    userid the mail signed up is shown from then on as every existing userid is (``signup
    carol ********``, as ``signup bob ********``, bob being shorter than any password). None
    where nothing can change, without a read: every word that might be a userid or a board
    was known on receipt (a move, a challenge), or the mail is a ``multiple`` one."""
    if text.multiple or not text.line or text.known is None:
        return None
    userids, boards = candidates([text.line])
    if userids <= text.known.userids and boards <= text.known.boards:
        return None
    shown = mask_line(text.line, database_lookup(session, candidates)([text.line]))[:900]
    return shown if shown != text.command else None


def _scrubber(words: set[str]) -> Callable[[str], str]:
    return Secrets(words=words).scrub


def redact(
    text: CommandText, session: Session | None = None
) -> tuple[str, str, Callable[[str], str]]:
    """What is kept of a processed mail: its Subject and the part of its body the server
    read (command lines, or the comment up to quoted text), with every word its command
    lines hide masked (every password among them); and the masking function itself.
    ``session`` finds the existing userids and boards, which are shown; without it, every
    word that is not a keyword, an option or move notation is masked."""
    lookup = database_lookup(session, candidates) if session is not None else None
    return text.redacted(_scrubber, lookup)


__all__ = [
    "CommandMail", "CommandProcessor", "CommandText", "Reply", "describe", "dispatch",
    "next_line", "redact", "shown_after", "start_lines",
]
