"""From one inbound mail to its replies: find the command(s), run them, report.

A mail carries one command in its Subject (pbmserv style); its body is the comment. A
Subject of ``multiple`` makes every body line a command. The reply to a ``multiple`` mail
lists, in the manner of GNU Mailman, the Results of each line, the lines left Unprocessed
and how many were Ignored.

:func:`handle` runs a mail in two steps: the commands read and answer without a write lock,
then one short write transaction stores what they changed (see pbm_emergo.commands.api).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbm_emergo.commands import body, masking, multiple, registry
from pbm_emergo.commands.api import Write
from pbm_emergo.commands.base import Context, Refused, Result
from pbm_emergo.db import players
from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.session import read_sessions, write_turn
from pbm_emergo.game import lockout
from pbm_emergo.game.messages import CommandMail, Reply, clean_subject
from pbm_emergo.game.secrets import Known, Secrets
from pbm_emergo.views.templating import render

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from pbm_emergo.config import Config

log = logging.getLogger(__name__)

# At most this many command lines of one `multiple` mail are run; the rest are reported
# as Unprocessed.
MAX_COMMAND_LINES = 30
# A comment (the body of a move) is cut after this many lines / characters.
MAX_COMMENT_LINES = 40
MAX_COMMENT_CHARS = 4000
# Echoed command lines are shortened to this many characters.
MAX_ECHO_CHARS = 200
MAX_ARGS = 40

# A mail whose writes keep conflicting with other mails' is given up after this many tries
# (the worker retries it later, like any failure).
MAX_CONFLICTS = 20
# After this many conflicts a mail runs inside its write transaction (as a `multiple` mail
# does): nothing it read can change before it writes, so a mail that keeps losing a race
# (a challenge whose board number another worker took each time) ends it.
OPTIMISTIC_ATTEMPTS = 3

# Where quoted or forwarded text starts: "On ... wrote:", Outlook's "-----Original
# Message-----", Gmail's "---------- Forwarded message ---------", Apple Mail's "Begin
# forwarded message:", and Outlook's line of underscores above a From:/Sent: block. A
# forwarded copy of a command mail carries its Subject, and so its password.
_QUOTE_HEADER = re.compile(
    r"^(on\s.*wrote:|.*\bwrote:|-+\s*original message\s*-+|-+\s*forwarded message\s*-+"
    r"|begin forwarded message:|_{8,})\s*$",
    re.IGNORECASE,
)
# The header block of a quoted or forwarded mail (Outlook without its line of underscores):
# a "From:" line followed by a "Sent:", "Date:", "To:" or "Subject:" line.
_FROM_LINE = re.compile(r"^\*?from:\*?\s", re.IGNORECASE)
_HEADER_LINE = re.compile(r"^\*?(sent|date|to|cc|subject):\*?\s", re.IGNORECASE)


@dataclass
class BodyLines:
    """The command lines of a body and what was left out."""

    commands: list[str] = field(default_factory=list)
    unprocessed: list[str] = field(default_factory=list)
    ignored: int = 0
    stopped_at: str | None = None  # why reading stopped, in words


def _stop_reason(line: str, following: str = "") -> str | None:
    stripped = line.strip()
    if _FROM_LINE.match(stripped) and _HEADER_LINE.match(following.strip()):
        return "quoted text"
    if line.rstrip("\r\n") in ("-- ", "--") or stripped == "--":
        return "the signature"
    if stripped.lower() == "end":
        return "the line 'end'"
    if stripped.startswith(">") or _QUOTE_HEADER.match(stripped):
        return "quoted text"
    return None


def body_text_lines(body: str) -> tuple[list[str], str | None, int]:
    """The lines of ``body`` before a signature, ``end`` or quoted text.

    Returns the lines, why reading stopped (or None) and how many lines were left out.
    """
    lines = body.splitlines()
    for index, line in enumerate(lines):
        reason = _stop_reason(line, lines[index + 1] if index + 1 < len(lines) else "")
        if reason:
            # A signature marker or 'end' is not content; a quoted line is.
            start = index if reason == "quoted text" else index + 1
            left = [x for x in lines[start:] if x.strip()]
            return lines[:index], reason, len(left)
    return lines, None, 0


def command_lines(body: str, limit: int = MAX_COMMAND_LINES) -> BodyLines:
    """Split the body of a ``multiple`` mail into the command lines to run."""
    lines, reason, ignored = body_text_lines(body)
    result = BodyLines(ignored=ignored, stopped_at=reason)
    for line in lines:
        text = " ".join(line.split())
        if not text:
            continue
        if len(result.commands) < limit:
            result.commands.append(text)
        else:
            result.unprocessed.append(text)
    return result


def comment_text(body: str) -> str:
    """The comment of a command mail: the body before any signature or quoted text."""
    lines, _, _ = body_text_lines(body)
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    text = "\n".join(line.rstrip() for line in lines[:MAX_COMMENT_LINES])
    return text[:MAX_COMMENT_CHARS]


def masked(line: str, known: Known | None = None) -> str:
    """``line`` as it may be echoed: only the words recognised as not secret (see
    :mod:`pbm_emergo.commands.masking`; ``known``: the userids and boards that exist)."""
    return masking.mask_line(line, known or Known())


@dataclass
class LineOutcome:
    line: str  # masked
    ok: bool
    summary: str
    text: str | None  # the answer or error text
    subject: str
    board: int | None
    replies: list[Reply]
    html: str | None = None  # the answer as HTML too (a board shown)


def run_line(ctx: Context, line: str) -> LineOutcome:
    """Run one command line; errors become an error text, never an exception (a Conflict
    while applying writes at once goes up: the whole mail starts over)."""
    words = line.split()
    ctx.masked_line = masked(line, ctx.known)
    command, used = registry.lookup(words)
    notices_before = len(ctx.notices)
    writes_before = len(ctx.writes)
    try:
        if command is None:
            raise unknown_command(masking.mask_words(words, ctx.known))
        args = words[used:]
        if len(args) > MAX_ARGS:
            raise Refused(f"The command has more than {MAX_ARGS} arguments.")
        result: Result = command().process(ctx, args)
    except Refused as err:
        # A failed command changes nothing, except what its error says must be stored.
        del ctx.writes[writes_before:]
        ctx.writes.extend(err.writes)
        ctx.apply_pending()
        return LineOutcome(
            line=ctx.masked_line,
            ok=False,
            summary=err.reason,
            text=error_text(err, ctx.masked_line, folded=ctx.in_multiple),
            subject=f"Emergo Board {err.board} Error" if err.board else "Emergo error",
            board=err.board,
            replies=err.replies + ctx.notices[notices_before:],
        )
    ctx.apply_pending()
    return LineOutcome(
        line=ctx.masked_line,
        ok=True,
        summary=result.summary,
        text=result.answer,
        subject=result.answer_subject,
        board=result.answer_board,
        replies=result.replies + ctx.notices[notices_before:],
        html=result.answer_html,
    )


def unknown_command(words: list[str]) -> Refused:
    if words and words[0].lower() == "emergo":
        name = " ".join(words[:2]).lower()
        reason = (
            f"There is no command '{name}'."
            if len(words) > 1
            else "The command 'emergo' needs a second word such as help, challenge, move or show."
        )
    else:
        reason = f"There is no command '{words[0].lower()}'." if words else "There is no command."
    return Refused(
        reason,
        template="error/unknown_command.txt.j2",
        commands=registry.help_entries(),
    )


def error_text(err: Refused, line: str, *, folded: bool = False) -> str:
    """The error reply; ``folded`` leaves out what a ``multiple`` report already shows."""
    return render(
        err.template,
        folded=folded,
        reason=err.reason,
        command=line,
        board=err.board,
        board_text=err.board_text,
        **err.details,
    )


def reading(mail: CommandMail) -> body.Reading:
    """How the mail's commands are read: its Subject, the body of a ``multiple`` mail, or
    the body of a mail whose Subject is not a command (see :mod:`pbm_emergo.commands.body`)."""
    return _reading(mail.subject, mail.body)


def _reading(subject: str, text: str) -> body.Reading:
    lines, _, _ = body_text_lines(text)
    return body.read(clean_subject(subject), lines)


def is_multiple(mail: CommandMail) -> bool:
    return reading(mail).multiple


def dispatch(
    session: Session, mail: CommandMail, config: Config, now: datetime,
    *, apply_at_once: bool = False,
) -> tuple[list[Reply], list[Write]]:
    """Run the command(s) of one mail: every reply it causes, and the writes to store (none
    left with ``apply_at_once``: then ``session`` is the write transaction and each
    command's writes are applied as it finishes)."""
    ctx = Context(
        session=session, config=config, now=now, sender=mail.sender,
        sender_trusted=mail.sender_trusted, apply_at_once=apply_at_once,
    )
    read = reading(mail)
    line = read.line
    # What may be shown of the command lines, and what must be kept out of every reply.
    multiple = read.multiple
    lines = _all_lines(mail.body) if multiple else [line]
    known = masking.known_from_shown(line, mail.shown) if mail.shown and not multiple else None
    if known is None:  # a `multiple` mail, or no word of the listener's: look them up
        known = masking.known_in(_lookup(session), lines)
    ctx.known = known
    ctx.secrets.words = masking.hidden_words(lines, ctx.known)
    replies, writes = _dispatch(ctx, mail, read)
    return [ctx.secrets.scrub_reply(r) for r in replies], writes


def redact(
    subject: str, body: str, session: Session | None = None
) -> tuple[str, str, Callable[[str], str]]:
    """The Subject and the read part of the body of a mail as they may be kept, and the
    function that masks the words its command lines hide (see commands.redact). Without
    ``session`` no userid or board is known: more words are masked."""
    read = _reading(subject, body)
    lines = _all_lines(body) if read.multiple else [read.line]
    # When the commands are the body's, the Subject (kept in the copy) may hold a secret too.
    hiding = [*lines, clean_subject(subject)] if read.from_body else lines
    known = masking.known_in(_lookup(session), hiding)  # one lookup for both
    secrets = Secrets(words=masking.hidden_words(hiding, known))
    if read.multiple:
        kept = "\n".join(masked(text, known) for text in lines)
    elif read.comment_lines is not None:  # one command line in the body, and its comment
        comment = secrets.scrub(comment_text("\n".join(read.comment_lines)))
        kept = "\n".join(x for x in (masked(read.line, known), comment) if x)
    else:
        kept = secrets.scrub(comment_text(body))
    return secrets.scrub(subject), kept, secrets.scrub


def _lookup(session: Session | None) -> masking.Lookup | None:
    return masking.database_lookup(session) if session is not None else None


def _all_lines(body: str) -> list[str]:
    """The lines of a ``multiple`` body that are run or shown: the others (a long body's
    rest) appear in no reply, and are not looked up."""
    lines = command_lines(body)
    return lines.commands + lines.unprocessed[: multiple.MAX_UNPROCESSED_SHOWN]


def _dispatch(
    ctx: Context, mail: CommandMail, read: body.Reading
) -> tuple[list[Reply], list[Write]]:
    line = read.line
    if read.multiple:
        return _dispatch_multiple(ctx, mail), ctx.writes[ctx.applied :]
    if not line:
        err = Refused(
            "Your mail has no command: write the command in the Subject line.",
            template="error/unknown_command.txt.j2",
            commands=registry.help_entries(),
        )
        return [Reply(to=mail.sender, subject="Emergo error", body=error_text(err, ""))], []
    if read.comment_lines is not None:  # the command is a line of the body: the rest is text
        ctx.comment = comment_text("\n".join(read.comment_lines))
    else:
        ctx.comment = comment_text(mail.body)
    outcome = run_line(ctx, line)
    log.info("command %r from %s: %s", outcome.line, mail.sender, "ok" if outcome.ok else "error")
    replies: list[Reply] = []
    if outcome.text is not None:
        replies.append(
            Reply(
                to=mail.sender, subject=outcome.subject, body=outcome.text, board=outcome.board,
                html=outcome.html,
            )
        )
    replies.extend(outcome.replies)
    return replies, ctx.writes[ctx.applied :]


def _dispatch_multiple(ctx: Context, mail: CommandMail) -> list[Reply]:
    ctx.in_multiple = True
    lines = command_lines(mail.body)
    outcomes: list[LineOutcome] = []
    replies: list[Reply] = []
    for line in lines.commands:
        outcome = run_line(ctx, line)
        outcomes.append(outcome)
        replies.extend(outcome.replies)
    failed = sum(1 for o in outcomes if not o.ok)
    # Within one reply's size: each answer once, long ones cut (commands/multiple.py).
    report = multiple.report(
        outcomes,
        lines.unprocessed,
        lambda line: masked(line, ctx.known),
        limit=MAX_COMMAND_LINES,
        ignored=lines.ignored,
        stopped_at=lines.stopped_at,
        failed=failed,
    )
    subject = f"Emergo multiple: {len(outcomes) - failed} done, {failed} failed"
    return [Reply(to=mail.sender, subject=subject, body=report), *replies]


def _check_passwords_ahead(
    session: Session, mail: CommandMail, config: Config, now: datetime
) -> None:
    """Check the passwords of a mail's command lines before it runs in its write
    transaction, so that their slow hashes are paid without the lock (successes land in the
    credential cache; nothing is counted or answered here: the commands do that). A userid
    locked for this sender is skipped: its passwords are not even checked."""
    ctx = Context(
        session=session, config=config, now=now, sender=mail.sender,
        sender_trusted=mail.sender_trusted,
    )
    read = reading(mail)
    for line in command_lines(mail.body).commands if read.multiple else [read.line]:
        words = line.split()
        command, used = registry.lookup(words)
        if command is None or command.credential_args is None:
            continue
        args = words[used:]
        userid_at, password_at = command.credential_args
        if max(userid_at, password_at) >= len(args):
            continue
        player = players.find_player(session, args[userid_at])
        if player is None or not player.active:
            continue
        try:
            lockout.check_not_locked(
                ctx, player, players.login_failures_of(session, player.id), board=None
            )
        except Refused:
            continue
        players.check_password(player.id, player.password_hash, args[password_at])


def handle(
    factory: sessionmaker[Session],
    mail: CommandMail,
    config: Config,
    now: datetime,
    *,
    outside: Callable[[list[Reply]], Any] | None = None,
    inside: Callable[[Session, Any], None] | None = None,
) -> list[Reply]:
    """Run the command(s) of one mail and store what they changed; returns the replies.

    The commands read and answer in a reading session (no write lock); then one short write
    transaction applies their writes and calls ``inside(session, outside(replies))`` (the
    caller's own writes: queue the replies, mark the mail done). A :class:`Conflict` (a
    write found that what the commands read has changed) starts everything over; after
    ``OPTIMISTIC_ATTEMPTS`` of them, and always for a ``multiple`` mail (each line sees the
    lines before it), the mail runs in the write transaction, its passwords checked ahead
    without the lock.
    """
    reads = read_sessions(factory)
    for attempt in range(1, MAX_CONFLICTS + 1):
        try:
            if is_multiple(mail) or attempt > OPTIMISTIC_ATTEMPTS:
                with reads() as session:
                    _check_passwords_ahead(session, mail, config, now)
                return _run_in_order(factory, mail, config, now, outside, inside)
            with reads() as session:
                replies, writes = dispatch(session, mail, config, now)
            built = outside(replies) if outside is not None else None
            _write(factory, writes, inside, built)
            return replies
        except Conflict as conflict:
            log.info("mail %s: %s; starting over (attempt %d)", mail.message_id, conflict, attempt)
    raise RuntimeError(f"the mail's changes conflicted {MAX_CONFLICTS} times; retried later")


@write_turn
def _run_in_order(
    factory: sessionmaker[Session],
    mail: CommandMail,
    config: Config,
    now: datetime,
    outside: Callable[[list[Reply]], Any] | None,
    inside: Callable[[Session, Any], None] | None,
) -> list[Reply]:
    """A mail run inside its write transaction (:func:`handle`): every line run and
    applied in one transaction, each seeing the lines before it."""
    with factory.begin() as session:
        replies, _ = dispatch(session, mail, config, now, apply_at_once=True)
        built = outside(replies) if outside is not None else None
        if inside is not None:
            inside(session, built)
    return replies


@write_turn
def _write(
    factory: sessionmaker[Session],
    writes: list[Callable[[Session], None]],
    inside: Callable[[Session, Any], None] | None,
    built: Any,
) -> None:
    """The write transaction of :func:`handle`: the commands' changes, then the caller's."""
    with factory.begin() as session:
        for change in writes:
            change(session)
        if inside is not None:
            inside(session, built)


_BOARD_ARGUMENT = re.compile(r"^emergo\s+[a-z]+\s+(\d{1,9})\b", re.IGNORECASE)


@dataclass(frozen=True)
class Described:
    """What a command mail is, worked out once on receipt (the mail layer stores it)."""

    command: str  # the command line as it may be shown: passwords masked ("multiple" as is)
    boards: tuple[int, ...]  # the boards its command lines name, in order, each once


def describe(subject: str, body: str, lookup: masking.Lookup | None = None) -> Described:
    """The masked command line of a mail and the boards it is about (for one board's mail
    to be handled in order); a ``multiple`` mail names the boards of its body lines.
    ``lookup`` finds which of its words are existing userids and boards (shown)."""
    read = _reading(subject, body)
    line = read.line
    lines = command_lines(body).commands if read.multiple else [line]
    boards: list[int] = []
    for text in lines:
        match = _BOARD_ARGUMENT.match(text)
        if match and int(match[1]) not in boards:
            boards.append(int(match[1]))
    if not read.multiple:
        # The command as it runs: the Subject, or the body's one command line.
        shown = masked(line, masking.known_in(lookup, [line]))
    elif read.from_body:
        known = masking.known_in(lookup, lines)
        shown = " | ".join(masked(text, known) for text in lines)
    else:
        shown = line
    return Described(command=shown, boards=tuple(boards))
