"""The lines of a ``multiple`` mail, each its own unit of work.

A ``multiple`` mail's lines run one after the other, each seeing what the lines before it
stored. Each line is read, decided and answered in a reading session (:func:`next_line`);
its runner (the mail worker) then stores its changes and its mails to others in the line's
own short write transaction, with a record of the line
(:class:`~pbm_emergo.db.inbound_lines.LineRun`). So no line is rendered inside a write
transaction, and a worker that takes the mail up again after a crash goes on after the last
line stored. What one line leaves the next is a value (:class:`LinesSoFar`): the words known
to exist, the secrets to keep out of every reply, what the mail has used of its budgets,
the language of its replies once decided. The unit of work of the last line also makes the
mail's report (:mod:`pbm_emergo.app.multiple`), which its write transaction queues with
marking the mail done.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pbm_emergo.app import multiple
from pbm_emergo.app.budget import BudgetSoFar
from pbm_emergo.app.context import Context
from pbm_emergo.app.dispatcher import (
    Language,
    MailCommands,
    reply_language,
    run_line,
    with_typos_checked,
)
from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.app.results import Write
from pbm_emergo.db.inbound_lines import LineRun
from pbm_emergo.db.vocabulary import database_lookup
from pbm_emergo.game.budget import Spent
from pbm_emergo.game.words import MAX_COMMAND_LINES, Known
from pbm_emergo.views import i18n
from pbm_emergo.views.i18n import speaking
from pbm_emergo.views.rendered import rendered

if TYPE_CHECKING:
    from pbm_emergo.config import Config
    from pbm_emergo.db.session import Session

__all__ = ["LinesSoFar", "NextLine", "next_line", "run_all", "start_lines"]


@dataclass(frozen=True)
class LinesSoFar:
    """What the lines of a ``multiple`` mail stored so far leave to the next line."""

    known: Known  # the userids and boards of its lines that exist, as found at the start
    hidden: frozenset[str]  # the words of its lines that may be secrets
    passwords: frozenset[str]  # the passwords verified (after a crash: tried) so far
    runs: tuple[LineRun, ...]  # the lines run, in order
    budget: BudgetSoFar  # what the mail has used of its budgets of mails to others
    password_failures: int  # wrong passwords hashed so far (capped per mail)
    notified: frozenset[str]  # userids whose owners were told of a foreign login
    language: str | None = None  # the replies' language, once a line decided it
    recorded: int = 0  # how many of ``runs`` are stored (see NextLine.stored)

    @property
    def next_number(self) -> int:
        return len(self.runs) + 1


@dataclass(frozen=True)
class NextLine:
    """A line's unit of work, to be stored in its own write transaction: the records of
    the lines to store with it (itself and those before it that needed no transaction), its
    mails to others, its writes, what the next line starts from once these are stored, and
    after the mail's last line the mail's report.

    A line that changed nothing and sends nothing (``stored`` False: ``show``, ``help``, a
    refusal that counts no wrong password) needs no write transaction: its record waits in
    ``unrecorded`` for the next line that has one (a mail taken up again runs it again,
    which changes nothing)."""

    unrecorded: tuple[LineRun, ...]  # the lines to record in this line's transaction
    replies: list[Reply]
    writes: list[Write]
    so_far: LinesSoFar
    report: Reply | None = None
    stored: bool = True

    @property
    def last(self) -> bool:
        return self.report is not None


def start_lines(
    session: Session | None, mail: CommandMail, *, language: Language, text: MailCommands,
    runs: Sequence[LineRun] = (),
) -> LinesSoFar:
    """Where a ``multiple`` mail's lines start: the words of its lines that exist, those
    checked not to be the sender's password (a few hashes, in this reading session), and
    ``runs``, the lines a worker stored before (whose passwords are masked from here on:
    whether each was right is not kept, as no password is)."""
    lines = text.echoed
    if session is None:  # a test without a database: nothing exists
        known = Known()
    else:
        known = database_lookup(session, language.candidates)(lines)
        if mail.sender:
            typos = language.unchecked_userids(lines, known)
            known = with_typos_checked(session, mail.sender, typos, known)
    tried = {
        login[1] for run in runs
        if (login := language.login(text.lines[run.number - 1])) is not None
    }
    spent = _spent_by(runs)
    return LinesSoFar(
        known=known,
        hidden=frozenset(language.hidden_words(lines, known)),
        passwords=frozenset(tried),
        runs=tuple(runs),
        recorded=len(runs),
        budget=BudgetSoFar(spent=spent, stored=spent),
        password_failures=sum(run.password_failures for run in runs),
        notified=frozenset(userid for run in runs for userid in run.notified),
    )


def next_line(
    session: Session | None, mail: CommandMail, config: Config, now: datetime, *,
    language: Language, text: MailCommands, so_far: LinesSoFar,
    board_number: int | None = None,
) -> NextLine:
    """Run the next line of a ``multiple`` mail in ``session`` from ``so_far``
    (``board_number``: a number set aside for the board the line's challenge makes, as for
    a mail of one command: :func:`pbm_emergo.app.dispatcher.dispatch`)."""
    ctx = Context(
        session=session,  # type: ignore[arg-type]  # None: a test without a database
        config=config, now=now, sender=mail.sender, sender_trusted=mail.sender_trusted,
        sender_proven=mail.sender_proven, board_number=board_number, in_multiple=True,
        known=so_far.known, password_failures=so_far.password_failures,
        notified=set(so_far.notified),
    )
    ctx.secrets.words = set(so_far.hidden)
    for password in so_far.passwords:
        ctx.secrets.add_password(password)
    ctx.budget.carry_on(so_far.budget)
    number = so_far.next_number
    run: LineRun | None = None
    replies: list[Reply] = []
    with speaking(so_far.language or reply_language(session, mail, text)):
        if number <= len(text.lines):
            outcome = run_line(ctx, language, text.lines[number - 1])
            replies = [ctx.secrets.scrub_reply(reply) for reply in outcome.replies]
            charged = ctx.budget.spent.beyond(so_far.budget.spent)
            run = LineRun(
                number=number, line=outcome.line, ok=outcome.ok, summary=outcome.summary,
                summary_said=outcome.summary_said,
                # Kept with its value marks: the report tells its words from its values.
                answer=None if outcome.text is None
                else ctx.secrets.scrub_kept(outcome.text).marked(),
                mails_charged=charged.mail, accounts_charged=charged.by_account,
                password_failures=ctx.password_failures - so_far.password_failures,
                notified=tuple(sorted(ctx.notified - so_far.notified)),
            )
        runs = so_far.runs if run is None else (*so_far.runs, run)
        report = None
        if number >= len(text.lines):
            report = _report(mail, language, text, so_far.known, runs)
        stored = bool(
            report is not None or ctx.writes or replies
            or (run is not None and (run.password_failures or run.notified))
        )
        after = LinesSoFar(
            known=so_far.known,
            hidden=frozenset(ctx.secrets.words),
            passwords=frozenset(ctx.secrets.passwords),
            runs=runs,
            budget=ctx.budget.so_far(),
            password_failures=ctx.password_failures,
            notified=frozenset(ctx.notified),
            language=i18n.decided(),
            recorded=len(runs) if stored else so_far.recorded,
        )
    return NextLine(
        runs[so_far.recorded :], replies, ctx.writes, after,
        None if report is None else ctx.secrets.scrub_reply(report), stored,
    )


def run_all(
    session: Session | None, mail: CommandMail, config: Config, now: datetime, *,
    language: Language, text: MailCommands,
) -> tuple[list[Reply], list[Write]]:
    """Every line of a ``multiple`` mail in one session, the writes returned (a line does
    not see those of the lines before it: for tests and tools; the worker runs them one by
    one, :mod:`pbm_emergo.mail.line_by_line`): the report first, then the mails to others,
    and the writes."""
    so_far = start_lines(session, mail, language=language, text=text)
    replies: list[Reply] = []
    writes: list[Write] = []
    while True:
        step = next_line(
            session, mail, config, now, language=language, text=text, so_far=so_far
        )
        replies += step.replies
        writes += step.writes
        if step.report is not None:
            return [step.report, *replies], writes
        so_far = step.so_far


@dataclass(frozen=True, slots=True)
class _Reported:
    """A line as the report reads it (:class:`pbm_emergo.app.multiple.LineResult`)."""

    line: str
    ok: bool
    summary: str
    summary_said: str | None
    text: str | None  # the answer, with its value spans again


def _report(
    mail: CommandMail, language: Language, text: MailCommands, known: Known,
    runs: Sequence[LineRun],
) -> Reply:
    """The reply to a ``multiple`` mail: each line's result, in the manner of GNU
    Mailman."""
    failed = sum(1 for run in runs if not run.ok)
    body = multiple.report(
        [
            _Reported(
                run.line, run.ok, run.summary, run.summary_said,
                None if run.answer is None else rendered(run.answer),
            )
            for run in runs
        ],
        list(text.unprocessed),
        lambda line: language.masked(line, known),
        limit=MAX_COMMAND_LINES,
        ignored=text.ignored,
        stopped_at=text.stopped_at,
        failed=failed,
    )
    subject = f"Emergo multiple: {len(runs) - failed} done, {failed} failed"
    return Reply(to=mail.sender, subject=subject, body=body)


def _spent_by(runs: Sequence[LineRun]) -> Spent:
    """What the mail's budgets were charged by the lines ``runs``."""
    accounts: dict[int, int] = {}
    for run in runs:
        for account, count in run.accounts_charged:
            accounts[account] = accounts.get(account, 0) + count
    return Spent(sum(run.mails_charged for run in runs), tuple(accounts.items()))
