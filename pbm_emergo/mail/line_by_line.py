"""A ``multiple`` mail, line by line: each line its own unit of work.

Each line is read, decided and answered in a reading session (the line before's, when that
one stored nothing), starting from what the lines before it left
(:class:`~pbm_emergo.app.lines.LinesSoFar`), and stored in its own short write transaction
with a record of it (:mod:`pbm_emergo.db.inbound_lines`), which re-checks the claim; the
last one's also queues the mail's report and marks the mail done. A line that changes
nothing and sends nothing needs no transaction: its record goes with the next line that has
one. A mail taken up again (after a crash, or a failed attempt) goes on after the last line
stored. The conflict policy is a single mail's (:mod:`pbm_emergo.mail.answering`).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.app.outbox import BuiltReply, LimitNotices
from pbm_emergo.db import inbound_lines
from pbm_emergo.db.apply import apply
from pbm_emergo.db.session import Session, write_turn
from pbm_emergo.mail.answering import (
    Answered,
    Answering,
    CommandsRunner,
    LostClaim,
)
from pbm_emergo.mail.commands import CommandText, next_line, start_lines
from pbm_emergo.telemetry.sections import timed

if TYPE_CHECKING:
    # Only named: the shell's lines are loaded with the commands, on first use.
    from pbm_emergo.app.lines import LinesSoFar, NextLine


def answer_lines(
    runner: CommandsRunner, mail: CommandMail, text: CommandText, now: datetime,
    answering: Answering | None, *, reading: Session | None = None,
) -> Answered:
    """Run the lines of the ``multiple`` mail ``mail`` (``text``: as read on receipt) one
    by one, each seeing the lines before it, as the module docstring says; with
    ``answering``, each line's mails are queued and recorded, and the last marks that
    stored mail done. ``reading``: an open reading session for the first reads. Lines
    that only read go on reading in the session of the line before them (what they read
    has not changed: nothing was stored since); a line that stores something ends it."""
    first = reading if reading is not None else runner.reads()
    session: Session | None = first
    try:
        runs = (
            inbound_lines.lines_run(first, answering.claimed.id)
            if answering is not None else []
        )
        so_far = start_lines(first, mail, text, runs)
        replies: list[Reply] = []
        queued = 0
        while True:
            step, stored, session = _line(runner, mail, text, now, answering, so_far, session)
            replies += step.replies
            queued += stored
            if step.report is not None:
                return Answered([step.report, *replies], queued)
            so_far = step.so_far
    finally:
        if session is not None:
            session.close()


def _mails_of(step: NextLine) -> list[Reply]:
    """The mails a line sends: to others, and after the last line the mail's report."""
    return step.replies if step.report is None else [step.report, *step.replies]


def _line(
    runner: CommandsRunner, mail: CommandMail, text: CommandText, now: datetime,
    answering: Answering | None, so_far: LinesSoFar, reading: Session | None,
) -> tuple[NextLine, int, Session | None]:
    """One line, as a mail of one command runs: read and answer (the first time in
    ``reading``, when given), then one short write, under the mail's conflict policy
    (:meth:`CommandsRunner.until_stored`). Gives back, besides the line and how many
    mails it queued, the reading session to go on in: ``reading`` (or the session it
    opened) when the line stored nothing, else None (it was closed)."""

    def attempt(
        given: Session | None, board_number: int | None
    ) -> tuple[NextLine, int, Session | None]:
        session = given if given is not None else runner.reads()
        try:
            with timed("read"):
                step = next_line(
                    session, mail, runner.config, now, text=text, so_far=so_far,
                    board_number=board_number,
                )
        except BaseException:
            session.close()
            raise
        if not step.stored:  # it changed nothing: recorded with the next line
            return step, 0, session
        session.close()
        with timed("render"):
            built = runner.built_replies(_mails_of(step), now, answering)
        with timed("write"):
            queued = runner.outbox.with_limit_notices(
                runner.reads,
                lambda notices: _write_line(runner, step, built, now, answering, notices), now,
            )
            return step, queued, None

    return runner.until_stored(
        attempt, reading, f"mail {mail.message_id}, line {so_far.next_number}"
    )


@write_turn
def _write_line(
    runner: CommandsRunner, step: NextLine, built: list[BuiltReply], now: datetime,
    answering: Answering | None, limit_notices: LimitNotices,
) -> int:
    with runner.factory.begin() as session:
        apply(session, step.writes)
        return _store_line(runner, session, step, built, now, answering, limit_notices)


def _store_line(
    runner: CommandsRunner, session: Session, step: NextLine, built: list[BuiltReply],
    now: datetime, answering: Answering | None, limit_notices: LimitNotices,
) -> int:
    """The worker's own writes in a line's write transaction: the line recorded, with
    those before it that needed no transaction (the claim re-checked), or after the last
    line the mail marked done; its mails queued."""
    if answering is None:
        return 0
    if step.last:
        inbound_lines.forget_lines(session, answering.claimed.id)
        return runner.mark_done(session, built, now, answering, limit_notices)
    if not inbound_lines.record_lines(session, answering.claimed, step.unrecorded, now):
        raise LostClaim(answering.claimed.id)
    return runner.queue(session, built, now, answering, limit_notices)
