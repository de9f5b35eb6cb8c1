"""The mail pipeline of ``pbm-emergo serve`` and ``pbm-emergo worker`` (:class:`MailServer`).

The main process runs the aiosmtpd listener (its own event loop) and the scheduler; the
outbox sender and ``--workers`` inbox workers (one for each CPU by default) run as processes
of their own (:mod:`pbm_emergo.ops.workers`), so that handling and sending mail use every
core rather than sharing one interpreter lock with the listener. They share nothing but the
database, wake-up signals (a semaphore for stored mail, one for queued replies) and the
verified-credential cache; so more ``worker`` processes, on this machine or others (on
PostgreSQL), can work the same queues. More listener processes (:mod:`pbm_emergo.ops.listeners`)
and the robots (:mod:`pbm_emergo.ops.robot_process`) run beside them. A process that dies is
started again. (Tests run the workers and the sender as threads of one process:
``MailServer(..., processes=False)``.)

SIGTERM or SIGINT: the listener stops accepting first, each worker finishes the message in
hand, the sender finishes the mail in hand, then the process exits with status 0 (the command
line: :mod:`pbm_emergo.cli.serve`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.events import advance_events, tell_news
from pbm_emergo.app.outbox import LimitNotices, Outbox
from pbm_emergo.app.runner import Runner
from pbm_emergo.app.timers import ScheduledTask, Scheduler
from pbm_emergo.config import Config
from pbm_emergo.db import claims, inbox
from pbm_emergo.db.session import read_sessions
from pbm_emergo.db.types import utcnow
from pbm_emergo.mail.commands import CommandProcessor
from pbm_emergo.mail.inbound import InboxHandler, Listener
from pbm_emergo.mail.outbound import Backoff, OutboxSender, transport_for
from pbm_emergo.mail.worker import InboxWorker
from pbm_emergo.ops.listeners import ListenerProcesses
from pbm_emergo.ops.mailbox_reader import mailbox_thread
from pbm_emergo.ops.robot_process import RobotPlayer
from pbm_emergo.ops.workers import WorkerPool

log = logging.getLogger(__name__)

RAW_EXPIRY_SECONDS = 3600.0  # how often the scheduler removes expired raw mail
POLL_SECONDS = 1.0  # how often idle threads look at the database (other processes' mail)
SCHEDULER_SECONDS = 30.0


class MailServer:
    """The listener, the workers, the outbox sender and the scheduler, started and stopped
    together. ``listen=False`` is ``pbm-emergo worker``."""

    def __init__(
        self,
        config: Config,
        session_factory: sessionmaker[Session],
        *,
        processor: CommandProcessor | None = None,
        listen: bool = True,
        send: bool = True,
        work: bool = True,
        backoff: Backoff | None = None,
        poll_seconds: float = POLL_SECONDS,
        scheduler_seconds: float = SCHEDULER_SECONDS,
        scheduled: ScheduledTask | None = None,
        on_scheduled: Callable[[], None] | None = None,
        clock: Callable[[], datetime] = utcnow,
        processes: bool = False,
    ) -> None:
        self.config = config
        # Told after each run of the timed work has stored what it did (tests wait for it).
        self.on_scheduled = on_scheduled
        self.session_factory = session_factory
        self.clock = clock
        self.poll_seconds = poll_seconds
        self.scheduler_seconds = scheduler_seconds
        self.stopping = threading.Event()
        self.inbox_ready = threading.Event()
        self.outbox_ready = threading.Event()
        self.worker = InboxWorker(session_factory, config, processor, clock=clock)
        # The scheduler's mail, and the notices of the mail it gives up on.
        self.outbox = Outbox(config, clock=clock)
        # The timed work (reminders, losses on time): ``scheduled``, else the game's.
        self.scheduler = Scheduler(
            session_factory, config, scheduled=scheduled, outbox=self.outbox, clock=clock
        )
        # The events' steps, and their news mailed after the step that made it news (see
        # _advance_events).
        self.event_news = Runner(session_factory, config, outbox=self.outbox, clock=clock)
        self.reads = read_sessions(session_factory)
        # work=False (``serve --no-workers``): the listener alone; `pbm-emergo worker`
        # processes handle the mail.
        self.work = work
        self.pool = WorkerPool(config, poll_seconds, send=send) if processes and work else None
        self.sender = (
            OutboxSender(
                session_factory,
                transport_for(config.effective_outbound, config.domain,
                              password_file=config.outbound_password_file,
                              ca_file=config.outbound_ca_file),
                config.address,
                backoff=backoff,
                clock=clock,
            )
            if send and work and not processes
            else None
        )
        # With an inbox set, its mailbox reader takes the listener's place (or runs beside
        # it: inbox_with_listener).
        self.mailbox = (
            mailbox_thread(config, InboxHandler(session_factory, config,
                                                on_stored=self._mail_stored, clock=clock))
            if listen and config.inbox
            else None
        )
        listen_smtp = listen and (not config.inbox or config.inbox_with_listener == "yes")
        self.listener = (
            Listener(InboxHandler(session_factory, config, on_stored=self._mail_stored,
                                  clock=clock), config,
                     activity=self.pool.activity if self.pool is not None else None)
            if listen_smtp
            else None
        )
        # More processes accepting on the listener's socket (``serve``: ``--listeners``).
        self.listeners = (
            ListenerProcesses(config, config.listener_count - 1,
                              self.pool.inbox if self.pool is not None else None,
                              self.pool.activity if self.pool is not None else None)
            if listen_smtp and processes and config.listener_count > 1
            else None
        )
        # The robots play their turns off the mail path (a process of their own).
        self.robots = (
            RobotPlayer(config, session_factory, poll_seconds=poll_seconds, clock=clock,
                        processes=processes)
            if listen
            else None
        )
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Release the claims of a crashed predecessor, then start every part."""
        self._release_stale_claims()
        names: list[tuple[str, Callable[[], None]]] = []
        if self.pool is not None:
            self.pool.start()
        elif self.work:
            names += [
                (f"inbox-{n + 1}", self._work_inbox) for n in range(self.config.worker_count)
            ]
        if self.sender is not None:
            names.append(("outbox", self._work_outbox))
        names.append(("scheduler", self._schedule))
        for name, target in names:
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        if self.robots is not None:
            self.robots.start()
        if self.listener is not None:
            self.listener.start()
            if self.listeners is not None:
                self.listeners.start(self.listener.sockets())
        if self.mailbox is not None:
            self.mailbox.start()

    def stop(self, timeout: float = 60.0) -> None:
        """Stop accepting, let every thread finish what it holds, and wait for them."""
        if self.listeners is not None:
            self.listeners.stop_accepting()
        if self.listener is not None:
            self.listener.stop()
        if self.listeners is not None:
            self.listeners.stop(timeout)
        if self.mailbox is not None:
            self.mailbox.stop(timeout)
        self.stopping.set()
        self.inbox_ready.set()
        self.outbox_ready.set()
        deadline = time.monotonic() + timeout
        if self.robots is not None:
            self.robots.stop(timeout)
        if self.pool is not None:
            self.pool.stop(timeout)
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        alive = [t.name for t in self._threads if t.is_alive()]
        if alive:
            log.error("threads still busy at shutdown: %s", ", ".join(alive))

    def helpers(self) -> list[Any]:
        """The helper processes running now: the other listeners, the inbox workers and the
        outbox sender, the robots (none when the server runs in threads)."""
        found: list[Any] = []
        if self.listeners is not None:
            found += self.listeners.processes
        if self.pool is not None:
            found += self.pool.processes
        if self.robots is not None and self.robots.process is not None:
            found.append(self.robots.process)
        return found

    def check_workers(self) -> None:
        """Start again any worker process that died (the main loop calls this)."""
        if self.pool is not None and not self.stopping.is_set() and self.pool.restart_dead():
            # The dead process's mail in hand goes back to the queue now, not at the next
            # scheduler round (its board's later mail waits for it).
            try:
                self._release_stale_claims()
            except Exception:  # noqa: BLE001 - the scheduler tries again
                log.exception("releasing the claims of a dead worker")
        if self.robots is not None and not self.stopping.is_set():
            self.robots.check()
        if self.listeners is not None and not self.stopping.is_set():
            self.listeners.restart_dead()

    def _wake_sender(self) -> None:
        if self.pool is not None:
            self.pool.outbox.release()
        else:
            self.outbox_ready.set()

    def _mail_stored(self) -> None:
        if self.pool is not None:
            self.pool.inbox.release()
        else:
            self.inbox_ready.set()

    # --- the loops ---------------------------------------------------------------------

    def _work_inbox(self) -> None:
        while not self.stopping.is_set():
            try:
                outcome = self.worker.run_once()
            except Exception:  # noqa: BLE001 - the database may be briefly unavailable
                log.exception("inbox worker error")
                self.stopping.wait(self.poll_seconds)
                continue
            if outcome is not None:
                if outcome.replies:
                    self.outbox_ready.set()
                if outcome.status == "retry":
                    # A pause before the next attempt gives a passing trouble (the database
                    # restarting...) a chance before the message's 5 attempts are used up.
                    self.stopping.wait(self.poll_seconds)
                continue
            self.inbox_ready.wait(self.poll_seconds)
            self.inbox_ready.clear()
        # Stopping: the mail claimed ahead is handled, not left for the claim's lease.
        try:
            if (outcome := self.worker.finish()) is not None and outcome.replies:
                self.outbox_ready.set()
        except Exception:  # noqa: BLE001 - released as a stale claim by the next start
            log.exception("inbox worker error")

    def _work_outbox(self) -> None:
        assert self.sender is not None
        try:
            self._send_until_stopped(self.sender)
        finally:
            self.sender.close()  # QUIT to the relay

    def _send_until_stopped(self, sender: OutboxSender) -> None:
        while not self.stopping.is_set():
            try:
                if sender.run_once(self.stopping):
                    continue
                pause = sender.seconds_until_due(self.poll_seconds)
            except Exception:  # noqa: BLE001
                log.exception("outbox sender error")
                pause = self.poll_seconds
            self.outbox_ready.wait(pause)
            self.outbox_ready.clear()

    def _schedule(self) -> None:
        next_expiry = 0.0
        while not self.stopping.wait(self.scheduler_seconds):
            try:
                self._release_stale_claims()
                self._run_timed_work()
                self._advance_events()
                if time.monotonic() >= next_expiry:
                    self.expire_raw_mail()
                    next_expiry = time.monotonic() + RAW_EXPIRY_SECONDS
            except Exception:  # noqa: BLE001
                log.exception("scheduler error")

    def expire_raw_mail(self) -> int:
        """Remove the raw text of mail older than the retention period (see mail.redact)."""
        before = self.clock() - timedelta(days=self.config.raw_retention_days)
        with self.session_factory.begin() as session:
            expired = inbox.expire_raw(session, before)
        if expired:
            log.info("removed the raw text of %d mails received before %s", expired, before)
        return expired

    def _release_stale_claims(self) -> None:
        now = self.clock()
        # The notices of the mails given up on are built from a read, not in the write.
        with self.reads() as session:
            # Most rounds find nothing to put back: then the write lock is not taken.
            if not claims.any_stale_claim(session, now=now):
                return
            notices = {
                dead.id: self.outbox.dead_letter_notice(session, dead, now)
                for dead in claims.stale_claims_given_up(session, now=now)
            }

        def release(limit_notices: LimitNotices) -> tuple[int, int]:
            with self.session_factory.begin() as session:
                return claims.release_stale_claims(
                    session, now=now, given_up=notices.keys(),
                    on_dead=lambda session, dead: self.outbox.notify_dead(
                        session, dead, notices[dead.id], limit_notices, now
                    ),
                )

        inbound, outbound = self.outbox.with_limit_notices(self.reads, release, now)
        if inbound or outbound:
            log.warning("released stale claims: %d inbound, %d outbound", inbound, outbound)
            self._mail_stored()
            self._wake_sender()

    def _run_timed_work(self) -> None:
        """Timed work (reminders, timeouts): the ``scheduled`` given, else the game's
        (:func:`pbm_emergo.app.timers.scheduled`), run by the scheduler's runner."""
        queued = self.scheduler.run_once()
        if queued:
            self._wake_sender()
        if self.on_scheduled is not None:
            self.on_scheduled()

    def _advance_events(self) -> None:
        """Leagues and tournaments (:func:`pbm_emergo.app.events.advance_events`): start
        those due, take their games' results, open their next rounds, finish them, step by
        step; then mail what their players are to be told
        (:func:`~pbm_emergo.app.events.tell_news`, also what a crash left untold), made
        outside the write transaction."""
        advance_events(self.event_news, self.config, self.clock())
        told = self.event_news.perform(partial(tell_news, config=self.config))
        if told.queued:
            self._wake_sender()


__all__ = ["MailServer"]
