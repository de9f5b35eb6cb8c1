"""The inbox worker processes and the outbox sender's process of ``pbm-emergo serve`` and
``pbm-emergo worker`` (:class:`WorkerPool`), and the inbox workers' body (the sender's is
in :mod:`pbm_emergo.ops.sender_process`).

They share nothing with the main process but the database and wake-up signals (a semaphore
for stored mail, one for queued replies); each keeps its own verified-credential cache (see
:mod:`pbm_emergo.db.credentials`). A process that dies is started again by the main one
(:meth:`pbm_emergo.ops.server.MailServer.check_workers`).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from pbm_emergo.config import Config
from pbm_emergo.db import players, wakeups
from pbm_emergo.db.session import get_sessionmaker
from pbm_emergo.mail.activity import Deference, ListenerActivity
from pbm_emergo.mail.worker import InboxWorker
from pbm_emergo.ops.processes import (
    HELPERS,
    PoolProcessArgs,
    child_setup,
    join_all,
    parent_watch,
    restart_dead,
)
from pbm_emergo.ops.sender_process import run_sender_process

log = logging.getLogger(__name__)


class WorkerPool:
    """Inbox worker processes, woken by a semaphore the listener releases for each stored
    mail; they wake the outbox sender with another.

    Only semaphores and a lock-free flag cross the processes: a process killed while
    waiting on a multiprocessing Event or Condition leaves the next ``set()`` blocked for
    ever (found when the crash test SIGKILLed the server and its workers hung)."""

    def __init__(self, config: Config, poll_seconds: float, *, send: bool = True) -> None:
        self.config = config
        self.poll_seconds = poll_seconds
        self.send = send
        self.context = HELPERS
        self.inbox = self.context.Semaphore(0)
        self.outbox = self.context.Semaphore(0)
        self.stopping = self.context.RawValue("b", 0)
        # When the listeners last heard from a client: workers and sender let them go first.
        self.activity = ListenerActivity(self.context.RawValue("d", 0.0))
        self.processes: list[Any] = []

    def start(self) -> None:
        if wakeups.listens(self.config.effective_database_url):
            threading.Thread(target=self._wake_on_notify, name="wakeups", daemon=True).start()
        self.processes = [self._spawn(n) for n in range(self.config.worker_count)]
        if self.send:
            self.processes.append(self._spawn(-1))

    def _wake_on_notify(self) -> None:
        """Wake the inbox workers when mail is stored by a listener of any server (PostgreSQL
        notifications; see pbm_emergo.db.wakeups)."""
        notified = wakeups.listen(
            self.config.effective_database_url, (wakeups.INBOX,),
            timeout=self.poll_seconds, stopped=lambda: bool(self.stopping.value),
        )
        for _ in notified:
            self.inbox.release()

    def _spawn(self, n: int) -> Any:
        """Inbox worker ``n`` (from 0), or the outbox sender (-1)."""
        process = self.context.Process(
            target=run_worker_process if n >= 0 else run_sender_process,
            name=f"worker-{n + 1}" if n >= 0 else "outbox",
            args=(PoolProcessArgs(self.config, self.inbox, self.outbox, self.stopping,
                                  self.activity, self.poll_seconds, logging.getLogger().level),),
            daemon=True,
        )
        process.start()
        return process

    def restart_dead(self) -> int:
        """Start again every process that died; returns how many."""
        count = self.config.worker_count
        return restart_dead(self.processes, lambda n: self._spawn(n if n < count else -1))

    def stop(self, timeout: float) -> None:
        self.stopping.value = 1
        for _ in self.processes:
            self.inbox.release()
            self.outbox.release()
        join_all(self.processes, timeout)


def run_worker_process(args: PoolProcessArgs) -> None:
    """The body of an inbox worker process (see :class:`WorkerPool`)."""
    config = args.config
    terminated = child_setup(args.log_level, config.log_format, config.worker_nice)
    players.use_password_settings(config)
    worker = InboxWorker(get_sessionmaker(config), config)
    listeners = Deference(args.activity, burst=config.listener_first_seconds)
    parent_gone = parent_watch()
    while not (args.stopping.value or terminated.is_set()):
        if parent_gone():
            # The main process was killed (SIGKILL, OOM): stop too, and let its successor's
            # workers take over (our claims are released as those of a dead process).
            log.error("the main process is gone; this worker stops")
            return
        listeners.wait(terminated)
        try:
            outcome = worker.run_once()
        except Exception:  # noqa: BLE001 - the database may be briefly unavailable
            log.exception("inbox worker error")
            terminated.wait(args.poll_seconds)
            continue
        if outcome is not None:
            if outcome.replies:
                args.outbox.release()
            if outcome.status == "retry":
                terminated.wait(args.poll_seconds)
            continue
        if args.inbox.acquire(timeout=args.poll_seconds):
            # One wake-up is enough for all mail stored so far: claim until none is left.
            while args.inbox.acquire(block=False):
                pass
    _finish(worker, args)


def _finish(worker: InboxWorker, args: PoolProcessArgs) -> None:
    """Stopping: the mail claimed ahead is handled, not left to a successor."""
    try:
        outcome = worker.finish()
    except Exception:  # noqa: BLE001 - the claim is released as a dead process's
        log.exception("inbox worker error")
        return
    if outcome is not None and outcome.replies:
        args.outbox.release()


__all__ = ["WorkerPool", "run_worker_process"]
