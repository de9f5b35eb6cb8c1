"""From one mail's commands to its replies: run them, report.

:func:`dispatch` runs the commands of a mail, as read on receipt
(:class:`~pbm_emergo.commands.text.CommandText`), in a session the caller opened, and
returns the replies and the writes to store; the mail worker owns that unit of work (see
:mod:`pbm_emergo.commands.api`). The reply to a ``multiple`` mail lists, in the manner of GNU
Mailman, the Results of each line, the lines left Unprocessed and how many were Ignored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pbm_emergo.app import lockout
from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.commands import masking, multiple, registry
from pbm_emergo.commands.api import Write
from pbm_emergo.commands.base import Context, Refused, Result
from pbm_emergo.commands.text import MAX_COMMAND_LINES, CommandText, masked
from pbm_emergo.db import players
from pbm_emergo.views.templating import render

if TYPE_CHECKING:
    from pbm_emergo.config import Config
    from pbm_emergo.db.session import Session

log = logging.getLogger(__name__)

MAX_ARGS = 40


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
            raise unknown_command(
                masking.mask_words(words, ctx.known), registry.nearest(words),
                alone=not ctx.in_multiple,
            )
        args = words[used:]
        if len(args) > MAX_ARGS:
            raise Refused(f"The command has more than {MAX_ARGS} arguments.")
        command.check_arguments(args)
        result: Result = command().process(ctx, command.bind(ctx, args))
        # What it sends to others fits the mail's and the sender's budgets, or the command
        # is refused: nothing of it is stored or sent (game.budget).
        ctx.budget.charge([*result.replies, *ctx.notices[notices_before:]])
    except Refused as err:
        # A failed command changes nothing, except what its error says must be stored; its
        # notices to others go only within the budget.
        del ctx.writes[writes_before:]
        ctx.writes.extend(err.writes)
        ctx.apply_pending()
        ctx.notices[notices_before:] = ctx.budget.within(ctx.notices[notices_before:])
        return LineOutcome(
            line=ctx.masked_line,
            ok=False,
            summary=err.reason,
            text=error_text(err, ctx.masked_line, folded=ctx.in_multiple),
            subject=(
                "Emergo: start here" if isinstance(err, NoCommand)
                else f"Emergo Board {err.board} Error" if err.board else "Emergo error"
            ),
            board=err.board,
            replies=ctx.budget.within(err.replies) + ctx.notices[notices_before:],
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


class NoCommand(Refused):
    """A mail whose first words are no command and near none: it is answered with where to
    start, not as an error."""


def unknown_command(words: list[str], meant: str | None = None, *, alone: bool = False) -> Refused:
    """The refusal of a line that names no command (``words`` as they may be shown:
    masked), with the command it most likely meant; ``alone``: the mail's only command
    line, answered with where to start when it is near no command."""
    if alone and meant is None and not (words and words[0].lower() == "emergo"):
        return NoCommand(
            "This server plays Emergo by mail, and your mail has no command it knows.",
            template="error/start_here.txt.j2",
        )
    if words and words[0].lower() == "emergo":
        name = " ".join(words[:2]).lower()
        reason = (
            f"There is no command '{name}'."
            if len(words) > 1
            else "The command 'emergo' needs a second word such as help, challenge, move or show."
        )
    else:
        reason = f"There is no command '{words[0].lower()}'." if words else "There is no command."
    if meant is not None:
        reason += f" Did you mean '{meant}'?"
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


def dispatch(
    session: Session, mail: CommandMail, config: Config, now: datetime,
    *, text: CommandText | None = None, apply_at_once: bool = False,
) -> tuple[list[Reply], list[Write]]:
    """Run the command(s) of one mail, as read on receipt (``text``; read here from the
    mail when not given): every reply it causes, and the writes to store (none left with
    ``apply_at_once``: then ``session`` is the write transaction and each command's writes
    are applied as it finishes)."""
    if text is None:
        text = CommandText.read(mail.subject, mail.body)
    ctx = Context(
        session=session, config=config, now=now, sender=mail.sender,
        sender_trusted=mail.sender_trusted, sender_proven=mail.sender_proven,
        apply_at_once=apply_at_once,
    )
    # What may be shown of the command lines, and what must be kept out of every reply.
    lines = text.echoed
    shown = text.command  # as masked on receipt: the words found known then
    known = None if text.multiple or not shown else masking.known_from_shown(text.line, shown)
    if known is None:  # a `multiple` mail, or no word of the listener's: look them up
        lookup = masking.database_lookup(session) if session is not None else None
        known = masking.known_in(lookup, lines)
    ctx.known = known
    ctx.secrets.words = masking.hidden_words(lines, ctx.known)
    replies, writes = _dispatch(ctx, mail, text)
    return [ctx.secrets.scrub_reply(r) for r in replies], writes


def _dispatch(
    ctx: Context, mail: CommandMail, text: CommandText
) -> tuple[list[Reply], list[Write]]:
    line = text.line
    if text.multiple:
        return _dispatch_multiple(ctx, mail, text), ctx.writes[ctx.applied :]
    if not line:
        err = NoCommand(
            "Your mail has no command: write the command in the Subject line.",
            template="error/start_here.txt.j2",
        )
        return [Reply(to=mail.sender, subject="Emergo: start here", body=error_text(err, ""))], []
    # The comment goes to others (the opponent, subscribers, the web page): scrubbed as
    # replies are, and a command line copied into it masked; a password the command
    # verifies leaves out the lines that hold it (game.accounts.authenticate).
    ctx.comment_written = masking.mask_commands(text.comment, ctx.known)
    ctx.comment = ctx.secrets.scrub_comment(ctx.comment_written)
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


def _dispatch_multiple(ctx: Context, mail: CommandMail, text: CommandText) -> list[Reply]:
    ctx.in_multiple = True
    outcomes: list[LineOutcome] = []
    replies: list[Reply] = []
    for line in text.lines:
        outcome = run_line(ctx, line)
        outcomes.append(outcome)
        replies.extend(outcome.replies)
    failed = sum(1 for o in outcomes if not o.ok)
    # Within one reply's size: each answer once, long ones cut (commands/multiple.py).
    report = multiple.report(
        outcomes,
        list(text.unprocessed),
        lambda line: masked(line, ctx.known),
        limit=MAX_COMMAND_LINES,
        ignored=text.ignored,
        stopped_at=text.stopped_at,
        failed=failed,
    )
    subject = f"Emergo multiple: {len(outcomes) - failed} done, {failed} failed"
    return [Reply(to=mail.sender, subject=subject, body=report), *replies]


def check_passwords_ahead(
    session: Session, mail: CommandMail, text: CommandText, config: Config, now: datetime
) -> None:
    """Check the passwords of a mail's command lines before it runs in its write
    transaction, so that their slow hashes are paid without the lock (successes land in the
    credential cache; nothing is counted or answered here: the commands do that). A userid
    locked for this sender is skipped: its passwords are not even checked; and no password
    is hashed past the caps on wrong ones (game.lockout.checked_password)."""
    ctx = Context(
        session=session, config=config, now=now, sender=mail.sender,
        sender_trusted=mail.sender_trusted, sender_proven=mail.sender_proven,
    )
    for line in text.lines:
        words = line.split()
        command, used = registry.lookup(words)
        if command is None or command.grammar.login is None:
            continue
        args = words[used:]
        userid_at, password_at = command.grammar.login
        if max(userid_at, password_at) >= len(args):
            continue
        player = players.find_player(session, args[userid_at])
        if player is None or not player.active:
            continue
        try:
            lockout.check_not_locked(
                ctx, player, players.login_failures_of(session, player.id), board=None
            )
            lockout.checked_password(ctx, player, args[password_at], board=None)
        except Refused:
            continue
