"""From one mail's commands to its replies: run them, report.

:func:`dispatch` runs the commands of a mail, as read on receipt
(:class:`~pbm_emergo.commands.text.CommandText`), in a session the caller opened, and
returns the replies and the writes to store; the mail worker owns that unit of work (see
:mod:`pbm_emergo.mail.commands`). Each line becomes a request value through the mail
language the caller hands in (:class:`Language`: the command layer's
:data:`~pbm_emergo.commands.language.LANGUAGE`), and its handler runs it
(:mod:`pbm_emergo.app.handlers`). The lines of a ``multiple`` mail each run as their own
unit of work (:mod:`pbm_emergo.app.lines`), through :func:`run_line` as well.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from pbm_emergo.app.context import Context
from pbm_emergo.app.handlers import handle
from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.app.results import Refused, Result, Write
from pbm_emergo.db import outbox, players
from pbm_emergo.db.vocabulary import database_lookup
from pbm_emergo.game.requests import Request, Unfit
from pbm_emergo.game.words import Known
from pbm_emergo.views import i18n
from pbm_emergo.views.i18n import speaking
from pbm_emergo.views.reasons import said
from pbm_emergo.views.reply_mail import Attachment
from pbm_emergo.views.templating import render
from pbm_emergo.views.text_language import language_of_text

if TYPE_CHECKING:
    from pbm_emergo.config import Config
    from pbm_emergo.db.session import Session

log = logging.getLogger(__name__)

START_HERE_SUBJECT = "Emergo: start here"
# An address no player registered gets "start here" at most once in this long.
START_HERE_QUIET = timedelta(days=7)


class Language(Protocol):
    """What the dispatcher asks of the mail language (the command layer's
    :class:`~pbm_emergo.commands.language.MailLanguage`): pure functions of a command line
    and the words known to exist."""

    def request(self, line: str, known: Known, *, alone: bool) -> Request:
        """The request of one command line, or :class:`~pbm_emergo.game.requests.Unfit`
        (``alone``: the mail's only command line)."""
        ...

    def masked(self, line: str, known: Known) -> str:
        """``line`` as it may be echoed."""
        ...

    def mask_commands(self, text: str, known: Known) -> str:
        """A comment with the command lines in it masked."""
        ...

    def hidden_words(self, lines: Iterable[str], known: Known) -> set[str]:
        """The words of ``lines`` that may be secrets."""
        ...

    def unchecked_userids(self, lines: Iterable[str], known: Known) -> list[str]:
        """The words at a userid's place that no player has: shown once checked not to
        be the sender's password."""
        ...

    def candidates(self, lines: Iterable[str]) -> tuple[set[str], set[int]]:
        """The words of ``lines`` to look up: userids and board numbers."""
        ...

    def login(self, line: str) -> tuple[str, str] | None:
        """The userid and password of a command line's login, if it has one."""
        ...


class MailCommands(Protocol):
    """What the dispatcher reads of a mail's commands as read on receipt (the command
    layer's :class:`~pbm_emergo.commands.text.CommandText`)."""

    @property
    def line(self) -> str: ...
    @property
    def lines(self) -> tuple[str, ...]: ...
    @property
    def multiple(self) -> bool: ...
    @property
    def comment(self) -> str: ...
    @property
    def unprocessed(self) -> tuple[str, ...]: ...
    @property
    def ignored(self) -> int: ...
    @property
    def stopped_at(self) -> str | None: ...
    @property
    def known(self) -> Known | None: ...  # what the listener found known of ``line``
    @property
    def echoed(self) -> list[str]: ...
    @property
    def free_text(self) -> str: ...  # the mail's own words, its command lines left out


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
    attachment: Attachment | None = None  # a file sent with the answer (a game record)
    start_here: bool = False  # the line is no command: answered with where to start
    summary_said: str | None = None  # the summary in the sender's language, where it has one


def run_line(ctx: Context, language: Language, line: str) -> LineOutcome:
    """Run one command line; errors become an error text, never an exception."""
    ctx.masked_line = language.masked(line, ctx.known)
    notices_before = len(ctx.notices)
    writes_before = len(ctx.writes)
    ctx.budget.command_started()
    spent_before = ctx.budget.spent.mail
    try:
        try:
            request = language.request(line, ctx.known, alone=not ctx.in_multiple)
        except Unfit as unfit:
            raise refusal(unfit) from None
        result: Result = handle(ctx, request)
        # What it sends to others fits the mail's and the sender's budgets, or the command
        # is refused: nothing of it is stored or sent (game.budget).
        ctx.budget.charge([*result.replies, *ctx.notices[notices_before:]])
        _write_charged(ctx, spent_before)
    except Refused as err:
        # A failed command changes nothing, except what its error says must be stored; its
        # notices to others go only within the budget.
        del ctx.writes[writes_before:]
        ctx.writes.extend(err.writes)
        ctx.notices[notices_before:] = ctx.budget.within(ctx.notices[notices_before:])
        replies = ctx.budget.within(err.replies) + ctx.notices[notices_before:]
        _write_charged(ctx, spent_before)
        return LineOutcome(
            line=ctx.masked_line,
            ok=False,
            summary=err.reason,
            text=error_text(err, ctx.masked_line, folded=ctx.in_multiple),
            subject=(
                START_HERE_SUBJECT if isinstance(err, NoCommand)
                else f"Emergo Board {err.board} Error" if err.board else "Emergo error"
            ),
            board=err.board,
            replies=ctx.budget.tagged(replies),
            start_here=isinstance(err, NoCommand),
        )
    return LineOutcome(
        line=ctx.masked_line,
        ok=True,
        summary=result.summary,
        text=result.answer,
        subject=result.answer_subject,
        board=result.answer_board,
        replies=ctx.budget.tagged(result.replies + ctx.notices[notices_before:]),
        html=result.answer_html,
        attachment=result.answer_attachment,
        summary_said=result.summary_said,
    )


def _write_charged(ctx: Context, spent_before: int) -> None:
    """With the command's writes: what the mail has been charged so far, if the command
    charged any, to be counted again in the write transaction (app.budget)."""
    if ctx.budget.spent.mail > spent_before:
        ctx.write(ctx.budget.change(ctx.now))


class NoCommand(Refused):
    """A mail whose first words are no command and near none: it is answered with where to
    start, not as an error."""


def refusal(unfit: Unfit) -> Refused:
    """The refusal of a line the mail language made no request of."""
    kind = NoCommand if unfit.start_here else Refused
    return kind(reason_of(unfit), template=unfit.template, **unfit.details)


def reason_of(unfit: Unfit) -> str:
    """The reason of a refused line in the reader's language, where the command layer
    said which of its general sentences it is (it has no catalogs); else as it wrote it."""
    details = unfit.details
    if details.get("needs"):
        return i18n._(
            "The command %(name)s needs these arguments: %(usage)s.",
            name=details["needs"], usage=details["usage"],
        )
    if details.get("unknown"):
        reason = i18n._("There is no command '%(name)s'.", name=details["unknown"])
        if details.get("meant"):
            reason += " " + i18n._("Did you mean '%(command)s'?", command=details["meant"])
        return reason
    return said(unfit.reason_value or unfit.reason)


def answers_start_here(ctx: Context) -> bool:
    """Whether a mail without a command is answered with where to start. Never when our
    MTA found that its From fails (the address is likely forged: the answer would be
    backscatter); from an address that no player registered, at most once a week (the
    outbox remembers the last answer); from a player's address, always."""
    if not ctx.sender_trusted or not ctx.sender:
        return False
    if ctx.session is None:  # a test without a database: nothing to remember
        return True
    if players.address_registered(ctx.session, ctx.sender):
        return True
    return not outbox.mail_sent_since(
        ctx.session, ctx.sender, START_HERE_SUBJECT, ctx.now - START_HERE_QUIET
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
    *, language: Language, text: MailCommands, board_number: int | None = None,
) -> tuple[list[Reply], list[Write]]:
    """Run the command(s) of one mail, as read on receipt (``text``), each line made a
    request by ``language``: every reply it causes, and the writes to store.
    ``board_number``: a number set aside for the board a challenge makes (one that lost the
    number it read to another board: :mod:`pbm_emergo.mail.answering`)."""
    ctx = Context(
        session=session, config=config, now=now, sender=mail.sender,
        sender_trusted=mail.sender_trusted, sender_proven=mail.sender_proven,
        board_number=board_number,
    )
    # What may be shown of the command lines, and what must be kept out of every reply.
    if text.multiple:
        raise ValueError("a multiple mail runs line by line (app.lines)")
    lines = text.echoed
    known = text.known  # as found on receipt
    if known is None:  # none found by the listener: look them up
        known = (
            database_lookup(session, language.candidates)(lines)
            if session is not None else Known()
        )
    if session is not None and mail.sender:
        typos = language.unchecked_userids(lines, known)
        known = with_typos_checked(session, mail.sender, typos, known)
    ctx.known = known
    ctx.secrets.words = language.hidden_words(lines, ctx.known)
    with speaking(reply_language(session, mail, text)):
        replies, writes = _dispatch(ctx, language, mail, text)
    return [ctx.secrets.scrub_reply(r) for r in replies], writes


# At most this many unknown userids of one mail are checked against the sender's password
# (each check is an argon2 verification); the others stay masked.
MAX_TYPOS_CHECKED = 3


def with_typos_checked(
    session: Session, sender: str, words: list[str], known: Known
) -> Known:
    """``known`` with those of ``words`` (userids no player has, at a userid's place) that
    are not the password of the player ``sender`` is registered for: those may be shown."""
    if not words:
        return known
    login = players.password_hash_of_address(session, sender)
    checked = {
        word for word in words[:MAX_TYPOS_CHECKED]
        if login is None or not players.check_password(login[0], login[1], word).ok
    }
    return replace(known, not_passwords=known.not_passwords | checked)


def reply_language(
    session: Session | None, mail: CommandMail, text: MailCommands
) -> i18n.Undecided:
    """The language of the replies to a mail's sender: the one the player chose whom the
    mail logs in as, else the one the sender's address is registered for chose (looked up
    only if a reply needs it before a login), else the one the mail says it is written in
    (Content-Language), else, for a mail that logs in as nobody, the one its own words are
    written in where that can be told (views.text_language), else English."""

    def chosen() -> str | None:
        if session is None or not mail.sender:
            return None
        return players.language_of_address(session, mail.sender)

    return i18n.Undecided(
        chosen,
        mail.content_language.split(",")[0].strip() or None,
        told=lambda: language_of_text(text.free_text),
    )


def _dispatch(
    ctx: Context, language: Language, mail: CommandMail, text: MailCommands
) -> tuple[list[Reply], list[Write]]:
    line = text.line
    if not line:
        if not answers_start_here(ctx):
            log.info("mail without a command from %s: not answered", mail.sender)
            return [], []
        err = NoCommand(
            i18n._("Your mail has no command: write the command in the Subject line."),
            template="error/start_here.txt.j2",
        )
        return [Reply(to=mail.sender, subject=START_HERE_SUBJECT, body=error_text(err, ""))], []
    # The comment goes to others (the opponent, subscribers, the web page): scrubbed as
    # replies are, and a command line copied into it masked; a password the command
    # verifies leaves out the lines that hold it (game.accounts.authenticate).
    ctx.comment_written = language.mask_commands(text.comment, ctx.known)
    ctx.comment = ctx.secrets.scrub_comment(ctx.comment_written)
    outcome = run_line(ctx, language, line)
    log.info("command %r from %s: %s", outcome.line, mail.sender, "ok" if outcome.ok else "error")
    replies: list[Reply] = []
    if outcome.start_here and not answers_start_here(ctx):
        log.info("mail without a command from %s: not answered", mail.sender)
    elif outcome.text is not None:
        replies.append(
            Reply(
                to=mail.sender, subject=outcome.subject, body=outcome.text, board=outcome.board,
                html=outcome.html, attachment=outcome.attachment,
            )
        )
    replies.extend(outcome.replies)
    return replies, ctx.writes
