"""From one inbound mail to its replies: find the command(s), run them, report.

A mail carries one command in its Subject (pbmserv style); its body is the comment. A
Subject of ``multiple`` makes every body line a command. The reply to a ``multiple`` mail
lists, in the manner of GNU Mailman, the Results of each line, the lines left Unprocessed
and how many were Ignored.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from pbm_emergo.commands import registry
from pbm_emergo.commands.api import CommandMail, Reply
from pbm_emergo.commands.base import MASK, Command, CommandError, Context, Result
from pbm_emergo.mail.parse import strip_subject_prefixes
from pbm_emergo.render import render

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

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

_QUOTE_HEADER = re.compile(r"^(on\s.*wrote:|.*\bwrote:|-+\s*original message\s*-+)\s*$", re.I)


def clean_subject(subject: str) -> str:
    """The command line of a Subject: reply prefixes dropped, whitespace collapsed (the same
    rules the mail parser applies, so a stored or shown Subject masks like the command)."""
    return strip_subject_prefixes(subject)


@dataclass
class BodyLines:
    """The command lines of a body and what was left out."""

    commands: list[str] = field(default_factory=list)
    unprocessed: list[str] = field(default_factory=list)
    ignored: int = 0
    stopped_at: str | None = None  # why reading stopped, in words


def _stop_reason(line: str) -> str | None:
    stripped = line.strip()
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
        reason = _stop_reason(line)
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


def masked(line: str) -> str:
    """``line`` with every password masked (for any echo of a command line)."""
    words = line.split()
    command, used = registry.lookup(words)
    if command is None:
        # Unknown command: nothing tells where a password is, so hide every argument.
        head = 2 if words[:1] and words[0].lower() == "emergo" else 1
        shown = words[:head] + [MASK] * len(words[head:])
    else:
        args = words[used:]
        well_formed = _fits(command, args)
        shown = words[:used] + command.mask(args, well_formed=well_formed)
    text = " ".join(shown)
    if len(text) > MAX_ECHO_CHARS:
        text = text[: MAX_ECHO_CHARS - 3] + "..."
    return text


def _fits(command: type[Command], args: list[str]) -> bool:
    return all(i < len(args) for i in command.secret_args) and command.arity_fits(len(args))


@dataclass
class LineOutcome:
    line: str  # masked
    ok: bool
    summary: str
    text: str | None  # the answer or error text
    subject: str
    thread: str | None
    replies: list[Reply]


def run_line(ctx: Context, line: str) -> LineOutcome:
    """Run one command line; errors become an error text, never an exception."""
    words = line.split()
    ctx.masked_line = masked(line)
    command, used = registry.lookup(words)
    notices_before = len(ctx.notices)
    try:
        if command is None:
            raise unknown_command(words)
        args = words[used:]
        if len(args) > MAX_ARGS:
            raise CommandError(f"The command has more than {MAX_ARGS} arguments.")
        result: Result = command().process(ctx, args)
    except CommandError as err:
        return LineOutcome(
            line=ctx.masked_line,
            ok=False,
            summary=err.reason,
            text=error_text(err, ctx.masked_line, folded=ctx.in_multiple),
            subject=f"Emergo Board {err.board} Error" if err.board else "Emergo error",
            thread=f"board-{err.board}" if err.board else None,
            replies=err.replies + ctx.notices[notices_before:],
        )
    return LineOutcome(
        line=ctx.masked_line,
        ok=True,
        summary=result.summary,
        text=result.answer,
        subject=result.answer_subject,
        thread=result.answer_thread,
        replies=result.replies + ctx.notices[notices_before:],
    )


def unknown_command(words: list[str]) -> CommandError:
    if words and words[0].lower() == "emergo":
        name = " ".join(words[:2]).lower()
        reason = (
            f"There is no command '{name}'."
            if len(words) > 1
            else "The command 'emergo' needs a second word such as help, challenge, move or show."
        )
    else:
        reason = f"There is no command '{words[0].lower()}'." if words else "There is no command."
    return CommandError(
        reason,
        template="error/unknown_command.txt.j2",
        commands=help_entries(),
    )


def help_entries() -> list[dict[str, str]]:
    """Usage and description of each listed command, for help texts."""
    return [
        {"usage": c.usage(), "description": c.description, "section": c.section}
        for c in registry.all_commands()
        if c.listed
    ]


def error_text(err: CommandError, line: str, *, folded: bool = False) -> str:
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


def dispatch(session: Session, mail: CommandMail, config: Config, now: datetime) -> list[Reply]:
    """Run the command(s) of one mail and return every reply it causes."""
    ctx = Context(session=session, mail=mail, config=config, now=now)
    line = clean_subject(mail.subject)
    if line.lower() == "multiple":
        return _dispatch_multiple(ctx)
    if not line:
        err = CommandError(
            "Your mail has no command: write the command in the Subject line.",
            template="error/unknown_command.txt.j2",
            commands=help_entries(),
        )
        return [Reply(to=mail.sender, subject="Emergo error", body=error_text(err, ""))]
    ctx.comment = comment_text(mail.body)
    outcome = run_line(ctx, line)
    log.info("command %r from %s: %s", outcome.line, mail.sender, "ok" if outcome.ok else "error")
    replies: list[Reply] = []
    if outcome.text is not None:
        replies.append(
            Reply(to=mail.sender, subject=outcome.subject, body=outcome.text, thread=outcome.thread)
        )
    replies.extend(outcome.replies)
    return replies


def _dispatch_multiple(ctx: Context) -> list[Reply]:
    ctx.in_multiple = True
    lines = command_lines(ctx.mail.body)
    outcomes: list[LineOutcome] = []
    replies: list[Reply] = []
    for line in lines.commands:
        outcome = run_line(ctx, line)
        outcomes.append(outcome)
        replies.extend(outcome.replies)
    failed = sum(1 for o in outcomes if not o.ok)
    report = render(
        "multiple.txt.j2",
        results=outcomes,
        unprocessed=[masked(line) for line in lines.unprocessed],
        limit=MAX_COMMAND_LINES,
        ignored=lines.ignored,
        stopped_at=lines.stopped_at,
        failed=failed,
    )
    subject = f"Emergo multiple: {len(outcomes) - failed} done, {failed} failed"
    return [Reply(to=ctx.mail.sender, subject=subject, body=report), *replies]
