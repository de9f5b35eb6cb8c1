"""What every helper process of the server shares: how it is started, its CPU priority, its
logging and signals, its end when the main process is gone, and being started again or
stopped by the main one.

The workers, the outbox sender, the listeners, the robots (:mod:`pbm_emergo.ops`) and the web
view (:mod:`pbm_emergo.cli.web`) all import these from here, below each of them.

Helpers are forked from multiprocessing's fork server, a process started clean (not forked
from the main one, whose threads and database connections a fork would copy) that imports
the helpers' modules once (:func:`preload_helpers`) and forks each helper from there. A
helper started as a fresh interpreter would import the package and its libraries again:
about half a second of CPU each, six times for every start of ``serve``, and its own copy
of every module.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import select
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.context import ForkServerContext
from typing import Any

from pbm_emergo.config import Config
from pbm_emergo.db.session import lower_priority_but_not_writes
from pbm_emergo.mail.activity import ListenerActivity
from pbm_emergo.telemetry.logs import setup_logging

log = logging.getLogger(__name__)

# How every helper process starts (see the module's text).
HELPERS: ForkServerContext = multiprocessing.get_context("forkserver")


def preload_helpers(*bodies: Callable[..., Any]) -> None:
    """Have the fork server import the modules of these process bodies before it forks the
    first helper (to be called before any helper starts; the fork server imports what it is
    told once, when it starts). It then sets aside what it imported from Python's collector
    (:func:`freeze_imports`), so that a helper's collections neither scan those objects nor
    write to the pages it shares with the others."""
    modules = ["__main__", *dict.fromkeys(body.__module__ for body in bodies),
               "pbm_emergo.ops.preloaded"]
    HELPERS.set_forkserver_preload(modules)


def freeze_imports() -> None:
    """In the fork server, after its imports: move everything alive to the collector's
    permanent generation (:func:`gc.freeze`), as Python advises before forks."""
    gc.collect()
    gc.freeze()


def parent_watch() -> Callable[[], bool]:
    """In a helper: a check of whether the process that started it is gone (killed with
    SIGKILL, say), which closes its end of the pipe the helper was started through. The
    check polls that pipe (about 1.5 us; multiprocessing's ``is_alive`` takes 7 us to build
    a selector each time, and the sender looks before every mail)."""
    parent = multiprocessing.parent_process()
    if parent is None:  # not started by multiprocessing: nobody to outlive
        return lambda: False
    pipe = select.poll()
    pipe.register(parent.sentinel, select.POLLIN)
    return lambda: bool(pipe.poll(0))


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


def exit_with_parent() -> None:
    """In a helper process that has no loop of its own to look (the web view): exit as soon
    as the main process is gone, so that a server killed with SIGKILL leaves nothing running."""
    parent_gone = parent_watch()

    def watch() -> None:
        while not parent_gone():
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


def named(processes: Iterable[Any]) -> str:
    """``worker-1 (pid 4242), worker-2 (pid 4243)``: helper processes as the log names them.
    They all run the fork server's command line, so ``ps`` and ``top`` do not tell them
    apart; the log does (and ``bench/pipeline.py`` reads it)."""
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


__all__ = [
    "HELPERS", "child_setup", "exit_with_parent", "freeze_imports", "join_all", "lower_priority",
    "parent_watch", "preload_helpers", "restart_dead",
]
