"""What every helper process of the server shares: its CPU priority, its logging and signals,
its end when the main process is gone, and being started again or stopped by the main one.

The workers, the outbox sender, the listeners, the robots (:mod:`pbm_emergo.ops`) and the web
view (:mod:`pbm_emergo.cli.web`) all import these from here, below each of them.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pbm_emergo.config import Config
from pbm_emergo.db.session import lower_priority_but_not_writes
from pbm_emergo.mail.activity import ListenerActivity
from pbm_emergo.telemetry.logs import setup_logging

log = logging.getLogger(__name__)


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
    """In a helper process (the cache's manager, the web view): exit as soon as ``parent`` is
    gone, so that a server killed with SIGKILL leaves nothing running."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def child_setup(log_level: int, log_format: str = "text", nice: int = 0) -> threading.Event:
    """Logging, CPU priority and signals of a worker, sender or listener process; the event
    is set on SIGTERM."""
    setup_logging(log_level, log_format)
    lower_priority(nice)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides when to stop
    terminated = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: terminated.set())
    return terminated


@dataclass(frozen=True)
class PoolProcessArgs:
    """What the worker pool hands each process it starts, the inbox workers and the outbox
    sender alike (pickled into the new process, the only way its semaphores and shared
    values can travel)."""

    config: Config
    inbox: Any  # a semaphore released when mail is stored
    outbox: Any  # a semaphore released when replies are queued
    stopping: Any  # a shared flag: the server is stopping
    activity: ListenerActivity
    poll_seconds: float
    log_level: int
    # The main process (passed, not read in the new process: it may die meanwhile).
    parent: int


def named(processes: Iterable[Any]) -> str:
    """``worker-1 (pid 4242), worker-2 (pid 4243)``: helper processes as the log names them.
    They all run the server's command line, so ``ps`` and ``top`` do not tell them apart;
    the log does (and ``bench/pipeline.py`` reads it)."""
    return ", ".join(f"{process.name} (pid {process.pid})" for process in processes)


def restart_dead(processes: list[Any], spawn: Callable[[int], Any]) -> int:
    """Start again (``spawn(n)``) every process ``processes[n]`` that died; how many."""
    restarted = 0
    for n, process in enumerate(processes):
        if not process.is_alive():
            log.error("%s exited with %s; starting it again", process.name, process.exitcode)
            processes[n] = spawn(n)
            log.info("started again: %s", named([processes[n]]))
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


__all__ = ["child_setup", "exit_with_parent", "join_all", "lower_priority", "restart_dead"]
