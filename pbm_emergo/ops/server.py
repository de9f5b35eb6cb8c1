"""``pbm-emergo serve`` and ``pbm-emergo worker``: the mail pipeline.

The main process runs the aiosmtpd listener (its own event loop) and the scheduler; the
outbox sender and ``--workers`` inbox workers (one for each CPU by default) run as processes
of their own, so that handling and sending mail use every core rather than sharing one
interpreter lock with the listener. They share nothing but the database, wake-up signals
(a semaphore for stored mail, one for queued replies) and the verified-credential cache;
so more ``worker`` processes, on this machine or others (on PostgreSQL), can work the same
queues. A process that dies is started again. (Tests run the workers and the sender as
threads of one process: ``MailServer(..., processes=False)``.)

SIGTERM or SIGINT: the listener stops accepting first, each worker finishes the message in
hand, the sender finishes the mail in hand, then the process exits with status 0.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from multiprocessing.managers import SyncManager
from types import FrameType
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.commands.api import CommandProcessor, ScheduledTask
from pbm_emergo.config import EVENT_LOOPS, Config, load_config
from pbm_emergo.db import credentials, queues
from pbm_emergo.db.session import lower_priority_but_not_writes
from pbm_emergo.db.types import utcnow
from pbm_emergo.game.robots import RobotPlayer
from pbm_emergo.mail.activity import Deference, ListenerActivity
from pbm_emergo.mail.inbound import InboxHandler, Listener
from pbm_emergo.mail.outbound import Backoff, OutboxSender, transport_for
from pbm_emergo.mail.worker import InboxWorker
from pbm_emergo.telemetry import metrics
from pbm_emergo.telemetry.logs import TEXT_FORMAT, setup_logging

LOG_FORMAT = TEXT_FORMAT

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
        clock: Callable[[], datetime] = utcnow,
        processes: bool = False,
    ) -> None:
        self.config = config
        self.scheduled = scheduled
        self.session_factory = session_factory
        self.clock = clock
        self.poll_seconds = poll_seconds
        self.scheduler_seconds = scheduler_seconds
        self.stopping = threading.Event()
        self.inbox_ready = threading.Event()
        self.outbox_ready = threading.Event()
        self.worker = InboxWorker(session_factory, config, processor, clock=clock)
        # work=False (``serve --no-workers``): the listener alone; `pbm-emergo worker`
        # processes handle the mail.
        self.work = work
        self.pool = WorkerPool(config, poll_seconds, send=send) if processes and work else None
        self.sender = (
            OutboxSender(
                session_factory,
                transport_for(config.effective_outbound, config.domain),
                config.address,
                backoff=backoff,
                clock=clock,
            )
            if send and work and not processes
            else None
        )
        self.listener = (
            Listener(InboxHandler(session_factory, config, on_stored=self._mail_stored,
                                  clock=clock), config,
                     activity=self.pool.activity if self.pool is not None else None)
            if listen
            else None
        )
        # More processes accepting on the listener's socket (``serve``: ``--listeners``).
        self.listeners = (
            ListenerProcesses(config, config.listener_count - 1,
                              self.pool.inbox if self.pool is not None else None,
                              self.pool.activity if self.pool is not None else None)
            if listen and processes and config.listener_count > 1
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

    def stop(self, timeout: float = 60.0) -> None:
        """Stop accepting, let every thread finish what it holds, and wait for them."""
        if self.listeners is not None:
            self.listeners.stop_accepting()
        if self.listener is not None:
            self.listener.stop()
        if self.listeners is not None:
            self.listeners.stop(timeout)
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
                self._run_scheduled_commands()
                if time.monotonic() >= next_expiry:
                    self.expire_raw_mail()
                    next_expiry = time.monotonic() + RAW_EXPIRY_SECONDS
            except Exception:  # noqa: BLE001
                log.exception("scheduler error")

    def expire_raw_mail(self) -> int:
        """Remove the raw text of mail older than the retention period (see mail.redact)."""
        before = self.clock() - timedelta(days=self.config.raw_retention_days)
        with self.session_factory.begin() as session:
            expired = queues.expire_raw(session, before)
        if expired:
            log.info("removed the raw text of %d mails received before %s", expired, before)
        return expired

    def _release_stale_claims(self) -> None:
        with self.session_factory.begin() as session:
            inbound, outbound = queues.release_stale_claims(
                session, now=self.clock(), on_dead=self.worker.notify_dead
            )
        if inbound or outbound:
            log.warning("released stale claims: %d inbound, %d outbound", inbound, outbound)
            self._mail_stored()
            self._wake_sender()

    def _run_scheduled_commands(self) -> None:
        """Timed work of the command layer (reminders, timeouts), if it offers any: the
        ``scheduled`` given, else ``pbm_emergo.commands.scheduled`` when it exists."""
        scheduled = self.scheduled
        if scheduled is None:
            commands = importlib.import_module("pbm_emergo.commands")
            scheduled = getattr(commands, "scheduled", None)
        if scheduled is None:
            return
        with self.session_factory.begin() as session:
            replies = scheduled(session, self.config, self.clock())
            queued = sum(self.worker.queue_scheduled(session, reply) for reply in replies)
        if queued:
            self._wake_sender()


class WorkerPool:
    """Inbox worker processes, woken by a semaphore the listener releases for each stored
    mail; they wake the outbox sender with another. They share the main process's
    verified-credential cache (a key and a dictionary kept by a multiprocessing manager).

    Only semaphores and a lock-free flag cross the processes: a process killed while
    waiting on a multiprocessing Event or Condition leaves the next ``set()`` blocked for
    ever (found when the crash test SIGKILLed the server and its workers hung)."""

    def __init__(self, config: Config, poll_seconds: float, *, send: bool = True) -> None:
        self.config = config
        self.poll_seconds = poll_seconds
        self.send = send
        self.context = multiprocessing.get_context("spawn")
        self.inbox = self.context.Semaphore(0)
        self.outbox = self.context.Semaphore(0)
        self.stopping = self.context.RawValue("b", 0)
        # When the listeners last heard from a client: workers and sender let them go first.
        self.activity = ListenerActivity(self.context.RawValue("d", 0.0))
        self.manager: Any = None
        self.cache_args: tuple[bytes, Any] = (b"", None)
        self.processes: list[Any] = []

    def start(self) -> None:
        self.manager = SyncManager(ctx=self.context)
        self.manager.start(exit_with_parent, (os.getpid(),))
        key, entries = credentials.shared_cache(self.manager)
        self.cache_args = (key, entries)
        credentials.install(credentials.CredentialCache(key=key, entries=entries))
        self.processes = [self._spawn(n) for n in range(self.config.worker_count)]
        if self.send:
            self.processes.append(self._spawn(-1))

    def _spawn(self, n: int) -> Any:
        """Inbox worker ``n`` (from 0), or the outbox sender (-1)."""
        process = self.context.Process(
            target=run_worker_process if n >= 0 else run_sender_process,
            name=f"worker-{n + 1}" if n >= 0 else "outbox",
            args=(self.config, *self.cache_args, self.inbox, self.outbox, self.stopping,
                  self.activity, self.poll_seconds, logging.getLogger().level, os.getpid()),
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
        if self.manager is not None:
            self.manager.shutdown()


def restart_dead(processes: list[Any], spawn: Callable[[int], Any]) -> int:
    """Start again (``spawn(n)``) every process ``processes[n]`` that died; how many."""
    restarted = 0
    for n, process in enumerate(processes):
        if not process.is_alive():
            log.error("%s exited with %s; starting it again", process.name, process.exitcode)
            processes[n] = spawn(n)
            restarted += 1
    return restarted


def join_all(processes: list[Any], timeout: float) -> None:
    """Wait for ``processes`` to end, ``timeout`` seconds in all; terminate the rest."""
    deadline = time.monotonic() + timeout
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            log.error("%s still busy at shutdown: terminated", process.name)
            process.terminate()


def lower_priority(nice: int) -> None:
    """Make this process ``nice`` steps nicer (see ``Config.worker_nice``), its write
    transactions excepted (see :func:`pbm_emergo.db.session.lower_priority_but_not_writes`);
    an OS that does not let it is logged, not fatal."""
    if nice <= 0:
        return
    try:
        lower_priority_but_not_writes(nice)
    except OSError as exc:
        log.warning("could not lower the CPU priority by %d: %s", nice, exc)


def exit_with_parent(parent: int) -> None:
    """In a helper process (the cache's manager): exit as soon as ``parent`` is gone, so that
    a server killed with SIGKILL leaves nothing running."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _child_setup(log_level: int, log_format: str = "text", nice: int = 0) -> threading.Event:
    """Logging, CPU priority and signals of a worker or sender process; the event is set on
    SIGTERM."""
    setup_logging(log_level, log_format)
    lower_priority(nice)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides when to stop
    terminated = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: terminated.set())
    return terminated


def run_worker_process(
    config: Config,
    key: bytes,
    entries: Any,
    inbox: Any,
    outbox: Any,
    stopping: Any,
    activity: ListenerActivity,
    poll_seconds: float,
    log_level: int,
    parent: int,
) -> None:
    """The body of an inbox worker process (see :class:`WorkerPool`); ``parent`` is the
    main process (passed, not read: it may die while this one is still starting)."""
    from pbm_emergo.db.session import get_sessionmaker

    terminated = _child_setup(log_level, config.log_format, config.worker_nice)
    credentials.install(credentials.CredentialCache(key=key, entries=entries))
    worker = InboxWorker(get_sessionmaker(config), config)
    listeners = Deference(activity, burst=config.listener_first_seconds)
    while not (stopping.value or terminated.is_set()):
        if os.getppid() != parent:
            # The main process was killed (SIGKILL, OOM): stop too, and let its successor's
            # workers take over (our claims are released as those of a dead process).
            log.error("the main process is gone; this worker stops")
            return
        listeners.wait(terminated)
        try:
            outcome = worker.run_once()
        except Exception:  # noqa: BLE001 - the database may be briefly unavailable
            log.exception("inbox worker error")
            terminated.wait(poll_seconds)
            continue
        if outcome is not None:
            if outcome.replies:
                outbox.release()
            if outcome.status == "retry":
                terminated.wait(poll_seconds)
            continue
        if inbox.acquire(timeout=poll_seconds):
            # One wake-up is enough for all mail stored so far: claim until none is left.
            while inbox.acquire(block=False):
                pass


class ListenerProcesses:
    """``count`` processes besides the main one, each accepting mail on the main listener's
    socket with a listener of its own (the kernel hands each new connection to one of the
    processes waiting on the socket). Parsing and storing mail is Python work, one core's
    worth per process; under a burst these use the other cores. The socket is bound once,
    by the main process: a second server on the same port still fails to start.

    A process stops when told to (after answering the mail it is storing), when its parent
    is gone, and is started again if it dies."""

    def __init__(
        self, config: Config, count: int, inbox: Any, activity: ListenerActivity | None
    ) -> None:
        self.config = config
        self.count = count
        self.inbox = inbox  # the workers' semaphore, released for each stored mail
        self.activity = activity
        self.context = multiprocessing.get_context("spawn")
        self.stopping = self.context.RawValue("b", 0)
        self.sockets: list[socket.socket] = []
        self.processes: list[Any] = []

    def start(self, sockets: list[socket.socket]) -> None:
        if len(sockets) != 1:
            # A host name with several addresses: one listener (the main one) for all.
            log.warning("listening on %d sockets: one listener process only", len(sockets))
            for sock in sockets:
                sock.close()
            return
        self.sockets = sockets
        self.processes = [self._spawn(n) for n in range(self.count)]

    def _spawn(self, n: int) -> Any:
        process = self.context.Process(
            target=run_listener_process,
            name=f"listener-{n + 2}",
            args=(self.config, self.sockets[0], self.inbox, self.activity, self.stopping,
                  logging.getLogger().level, os.getpid()),
            daemon=True,
        )
        process.start()
        return process

    def restart_dead(self) -> int:
        return 0 if self.stopping.value else restart_dead(self.processes, self._spawn)

    def stop_accepting(self) -> None:
        """Tell every process to stop (each answers the mail it is storing first)."""
        self.stopping.value = 1

    def stop(self, timeout: float) -> None:
        self.stop_accepting()
        join_all(self.processes, timeout)
        for sock in self.sockets:
            sock.close()
        self.sockets = []


def run_listener_process(
    config: Config,
    sock: socket.socket,
    inbox: Any,
    activity: ListenerActivity | None,
    stopping: Any,
    log_level: int,
    parent: int,
) -> None:
    """The body of a listener process (see :class:`ListenerProcesses`): the listener keeps
    the main process's priority."""
    from pbm_emergo.db.session import get_sessionmaker

    terminated = _child_setup(log_level, config.log_format)
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd: every command
    handler = InboxHandler(get_sessionmaker(config), config,
                           on_stored=inbox.release if inbox is not None else None)
    listener = Listener(handler, config, sock=sock, activity=activity)
    listener.start()
    try:
        while not (stopping.value or terminated.is_set()):
            if os.getppid() != parent:
                log.error("the main process is gone; this listener stops")
                break
            terminated.wait(0.2)
    finally:
        listener.stop()


def run_sender_process(
    config: Config,
    key: bytes,
    entries: Any,
    inbox: Any,
    outbox: Any,
    stopping: Any,
    activity: ListenerActivity,
    poll_seconds: float,
    log_level: int,
    parent: int,
) -> None:
    """The body of the outbox sender's process (see :class:`WorkerPool`): it sends what the
    workers queue, woken by their semaphore, so that the listener's process does nothing
    but accept mail."""
    from pbm_emergo.db.session import get_sessionmaker

    terminated = _child_setup(log_level, config.log_format, config.worker_nice)

    class Stop:
        """What OutboxSender checks between mails: the server stopping, or this process."""

        def is_set(self) -> bool:
            return bool(stopping.value) or terminated.is_set() or os.getppid() != parent

    stop = Stop()
    sender = OutboxSender(
        get_sessionmaker(config),
        transport_for(config.effective_outbound, config.domain),
        config.address,
    )
    listeners = Deference(activity, burst=config.listener_first_seconds)
    try:
        while not stop.is_set():
            listeners.wait(stop)
            try:
                if sender.run_once(stop):
                    continue
                pause = sender.seconds_until_due(poll_seconds)
            except Exception:  # noqa: BLE001
                log.exception("outbox sender error")
                pause = poll_seconds
            if outbox.acquire(timeout=pause):
                while outbox.acquire(block=False):
                    pass
    finally:
        sender.close()  # QUIT to the relay


# --- the command line --------------------------------------------------------------------


def register(subparsers: Any) -> None:
    for name, help_text in (
        ("serve", "run the mail server: SMTP listener, workers, outbox sender, scheduler"),
        ("worker", "run only the inbox workers and the outbox sender (more processes)"),
    ):
        parser = subparsers.add_parser(name, help=help_text, description=help_text)
        parser.add_argument("--config", help="a TOML configuration file (PBM_EMERGO_CONFIG)")
        parser.add_argument("--data-dir", dest="data_dir", help="PBM_EMERGO_DATA_DIR")
        parser.add_argument("--database-url", dest="database_url",
                            help="PBM_EMERGO_DATABASE_URL (default: SQLite in the data dir)")
        parser.add_argument("--address", help="the server's own address (PBM_EMERGO_ADDRESS)")
        parser.add_argument("--outbound",
                            help="smtp://host:port or maildir:PATH (PBM_EMERGO_OUTBOUND)")
        parser.add_argument("--smtputf8", choices=("auto", "yes", "no"),
                            help="whether the relay delivers to non-ASCII addresses; auto "
                                 "asks it (PBM_EMERGO_SMTPUTF8, default auto)")
        parser.add_argument("--reply-limit", dest="reply_limit", type=int,
                            help="replies to one address per hour (PBM_EMERGO_REPLY_LIMIT)")
        parser.add_argument("--workers", type=int,
                            help="inbox worker processes, default one per CPU (PBM_EMERGO_WORKERS)")
        if name == "serve":
            parser.add_argument("--listeners", type=int,
                                help="processes accepting SMTP, default one per CPU, at most 4 "
                                     "(PBM_EMERGO_LISTENERS)")
        parser.add_argument("--worker-nice", dest="worker_nice", type=int,
                            help="how much lower the CPU priority of the workers, the outbox "
                                 "sender and the robots is than the listener's "
                                 "(PBM_EMERGO_WORKER_NICE, default 19; 0: equal)")
        parser.add_argument("--listener-first-seconds", dest="listener_first_seconds",
                            type=float,
                            help="while SMTP clients are sending, the workers and the outbox "
                                 "sender wait for the listeners up to this long at a stretch "
                                 "(PBM_EMERGO_LISTENER_FIRST_SECONDS, default 2; 0: never)")
        parser.add_argument("--migrate", action="store_true",
                            help="migrate the database to the newest revision first "
                                 "(automatic on the embedded SQLite default)")
        parser.add_argument("--log-level", dest="log_level", default="INFO")
        parser.add_argument("--log-format", dest="log_format", choices=("text", "json"),
                            help="text (details as key=value) or json (PBM_EMERGO_LOG_FORMAT)")
        parser.add_argument("--metrics-port", dest="metrics_port", type=int,
                            help="serve Prometheus metrics on this port, /metrics "
                                 "(PBM_EMERGO_METRICS_PORT; default off)")
        parser.add_argument("--metrics-host", dest="metrics_host",
                            help="the address for --metrics-port (PBM_EMERGO_METRICS_HOST, "
                                 "default 127.0.0.1)")
        if name == "serve":
            parser.add_argument("--host", dest="smtp_host", help="PBM_EMERGO_SMTP_HOST")
            parser.add_argument("--port", dest="smtp_port", type=int, help="PBM_EMERGO_SMTP_PORT")
            parser.add_argument("--max-message-size", dest="max_message_size", type=int,
                                help="bytes (PBM_EMERGO_MAX_MESSAGE_SIZE)")
            parser.add_argument("--event-loop", dest="event_loop", choices=EVENT_LOOPS,
                                help="the listener's event loop (PBM_EMERGO_EVENT_LOOP, "
                                     "default uvloop)")
            parser.add_argument("--http-port", dest="http_port", type=int,
                                help="also serve the read-only web view on this port, on "
                                     "PBM_EMERGO_HTTP_HOST (PBM_EMERGO_HTTP_PORT; default off)")
            parser.add_argument("--no-workers", dest="no_workers", action="store_true",
                                help="run no inbox workers nor outbox sender here: only the "
                                     "listener and the scheduler (`pbm-emergo worker` "
                                     "processes do the rest)")
        parser.set_defaults(func=run_serve if name == "serve" else run_worker)


_OPTION_NAMES = ("data_dir", "database_url", "address", "outbound", "reply_limit", "workers",
                 "listeners", "worker_nice", "listener_first_seconds",
                 "smtp_host", "smtp_port", "max_message_size", "http_port", "log_format",
                 "metrics_port", "metrics_host", "smtputf8", "event_loop")


def _config_from(args: argparse.Namespace) -> Config:
    overrides = {name: getattr(args, name, None) for name in _OPTION_NAMES}
    return load_config(overrides, config_file=args.config)


def run_serve(args: argparse.Namespace) -> int:
    return _run(args, listen=True)


def run_worker(args: argparse.Namespace) -> int:
    return _run(args, listen=False)


def _run(args: argparse.Namespace, *, listen: bool) -> int:
    config = _config_from(args)
    setup_logging(getattr(logging, str(args.log_level).upper(), logging.INFO), config.log_format)
    # aiosmtpd logs every SMTP command at INFO.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    from pbm_emergo.db.session import (
        current_revision,
        get_engine,
        get_sessionmaker,
        head_revision,
        upgrade_to_head,
    )

    config.data_dir.mkdir(parents=True, exist_ok=True)
    if args.migrate or (listen and config.is_embedded_database):
        upgrade_to_head(config)
    current, head = current_revision(get_engine(config)), head_revision()
    if current != head:
        print(
            f"pbm-emergo: the database is at schema revision {current or '(empty)'}, not "
            f"{head}: run `pbm-emergo db upgrade` first, or add --migrate",
            file=sys.stderr,
        )
        return 1
    metrics_dir = None
    if config.metrics_port:
        # Before any process starts: they all count into this directory (see metrics.py).
        metrics_dir = metrics.use_multiprocess_dir()
    server = MailServer(config, get_sessionmaker(config), listen=listen, processes=True,
                        work=not getattr(args, "no_workers", False))
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: shutting down", signum)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server.start()
    endpoint = None
    if metrics_dir is not None:
        endpoint = metrics.MetricsEndpoint(
            config.metrics_host, config.metrics_port, get_sessionmaker(config), utcnow
        )
        endpoint.start()
    web = None
    if listen and config.http_port:
        from pbm_emergo.cli.web import WebProcess

        web = WebProcess(config)
        web.start()
    log.info(
        "pbm-emergo %s: address %s, database %s, outbound %s",
        "serving" if listen else "worker",
        config.address,
        _redact(config.effective_database_url),
        config.effective_outbound,
    )
    while not stop.wait(1.0):
        server.check_workers()
        if web is not None:
            web.check()
    if web is not None:
        web.stop()
    server.stop()
    if endpoint is not None:
        endpoint.stop()
    if metrics_dir is not None:
        metrics.remove_multiprocess_dir(metrics_dir)
    log.info("stopped")
    return 0


def _redact(url: str) -> str:
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001
        return "(unparseable URL)"


__all__ = ["MailServer", "WorkerPool", "register", "run_serve", "run_worker"]
