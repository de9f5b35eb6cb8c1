"""The runner: one way every operation off the mail path reads, decides, renders, writes
and mails, with one policy for conflicts, as GNU Mailman's ``core/runner.py`` owns each
message's disposal.

An operation is a function of a reading session and the time (:data:`Operation`): it reads
what it needs (one snapshot of its board), asks the pure core (:mod:`pbm_emergo.game`) to
decide, renders the events into mails, and hands back :class:`Work`: the typed changes to
store (each carrying its re-check) and the replies. :meth:`Runner.perform` then builds the
replies into mail bytes, still outside any write transaction, and opens one short write
transaction (in the writers' turn: :func:`~pbm_emergo.db.session.write_turn`) that
applies the changes (:func:`pbm_emergo.db.apply.apply`) and queues the mail through the
:class:`~pbm_emergo.app.outbox.Outbox`. No template is rendered and no password hashed
while the write lock is held.

The policy: a change whose re-check fails (:class:`~pbm_emergo.db.errors.Conflict`: a move
came meanwhile) rolls everything back, and the operation starts over from a fresh read, at
most ``attempts`` times; after that it is given up for now (:attr:`Ran.conflicted`) and the
caller's next round (the scheduler's, the robots') finds the work again. A
:class:`~pbm_emergo.app.results.Refused` from the operation stores nothing and goes to the
caller; any other failure rolls back and goes to the caller too, which retries it later
(the scheduler and the robots in their next round) or, for a stored mail, counts the
attempt and dead-letters it after the last (:class:`pbm_emergo.mail.worker.InboxWorker`,
the runner of stored mail).

The scheduler (:class:`pbm_emergo.app.timers.Scheduler`), the robots
(:class:`pbm_emergo.app.robots.RobotRunner`), the analyses
(:class:`pbm_emergo.app.analysis.AnalysisRunner`) and the operator's support cases
(:func:`pbm_emergo.app.support.run_case`) are runners; so is the inbox worker, whose
operation is a mail's commands.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.outbox import BuiltReply, LimitNotices, Outbox
from pbm_emergo.db.apply import Write, apply
from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.session import Session, SessionFactory, read_sessions, write_turn
from pbm_emergo.db.types import utcnow

if TYPE_CHECKING:
    from pbm_emergo.config import Config

log = logging.getLogger(__name__)

#: How many times an operation starts over from a fresh read after a conflict before it is
#: given up for the caller's next round.
ATTEMPTS = 3


@dataclass(frozen=True)
class Work:
    """What an operation decided on what it read: the ``changes`` to store (in order, each
    with its re-check) and the ``replies`` to mail once they are stored; ``summary`` says
    what it did (logs, the operator)."""

    changes: tuple[Write, ...] = ()
    replies: tuple[Reply, ...] = ()
    summary: str = ""

    @property
    def empty(self) -> bool:
        return not self.changes and not self.replies


#: An operation: read through the session (a reading one: no write lock), decide at the
#: time given, render; None when there is nothing to do.
Operation = Callable[[Session, datetime], "Work | None"]


@dataclass(frozen=True)
class Ran:
    """What became of one operation: its work as stored (None: nothing to do, or given up),
    how many mails go out now (a reply held by the hourly cap goes later), and whether it
    was given up after ``ATTEMPTS`` conflicts."""

    work: Work | None
    queued: int = 0
    conflicted: bool = False

    @property
    def stored(self) -> bool:
        return self.work is not None


class Runner:
    """Runs operations (:meth:`perform`) as the module docstring says; ``outbox`` queues the
    mail (one the caller shares, or its own), ``clock`` gives the time of each attempt."""

    attempts = ATTEMPTS

    def __init__(
        self,
        factory: SessionFactory,
        config: Config,
        *,
        outbox: Outbox | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.factory = factory
        self.config = config
        self.clock = clock
        self.outbox = outbox if outbox is not None else Outbox(config, clock=clock)
        self.reads = read_sessions(factory)

    def perform(self, operation: Operation, *, now: datetime | None = None) -> Ran:
        """Read, decide and render (``operation``, in a reading session), build the mail,
        then store the changes and queue the mail in one short write transaction; start over
        on a conflict (see the module docstring). ``now``: the time of every attempt (else
        the clock's at each)."""
        for attempt in range(1, self.attempts + 1):
            at = self.clock() if now is None else now
            with self.reads() as session:
                work = operation(session, at)
            if work is None or work.empty:
                return Ran(work)
            ran = self.store(work, at)
            if not ran.conflicted:
                return ran
            log.info("starting over (attempt %d)", attempt)
        return Ran(None, conflicted=True)

    def store(self, work: Work, now: datetime) -> Ran:
        """``work`` decided at ``now``: its mail built (outside the write transaction),
        then its changes stored and its mail queued in one short write transaction;
        ``conflicted`` (nothing stored) when a re-check failed."""
        built = self.outbox.build_all(work.replies, now)
        try:
            queued = self.outbox.with_limit_notices(
                self.reads, lambda notices: self.write(work.changes, built, now, notices), now
            )
        except Conflict as conflict:
            log.info("%s: nothing stored (%s)", work.summary or "work", conflict)
            return Ran(None, conflicted=True)
        return Ran(work, queued)

    @write_turn
    def write(
        self, changes: Sequence[Write], built: Sequence[BuiltReply], now: datetime,
        limit_notices: LimitNotices,
    ) -> int:
        """The write transaction: ``changes`` applied, then the mail queued within the
        hourly cap (with ``limit_notices``, built before it); how many mails go out now. A
        failed re-check rolls it all back."""
        with self.factory.begin() as session:
            apply(session, changes)
            return self.enqueue(session, built, now, limit_notices) if built else 0

    def enqueue(
        self, session: Session, built: Sequence[BuiltReply], now: datetime,
        limit_notices: LimitNotices,
    ) -> int:
        """Queue the built mail in the write transaction (:meth:`Outbox.enqueue`); how many
        go out now. A runner whose mail is queued otherwise says so here."""
        return self.outbox.enqueue(session, built, now, limit_notices=limit_notices)


__all__ = ["ATTEMPTS", "Operation", "Ran", "Runner", "Work"]
