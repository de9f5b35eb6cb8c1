"""The robots' runner in the server: :class:`RobotPlayer` runs
:class:`pbm_emergo.app.robots.RobotRunner` in a process of its own (``pbm-emergo serve``) or
a thread (tests), starts it again if it dies, and stops it with the server. The runner's game
logic lives in :mod:`pbm_emergo.app.robots`; this module gives it the outbox
(:class:`pbm_emergo.app.outbox.Outbox`), the process's priority and its signals.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.outbox import Outbox
from pbm_emergo.app.robots import RobotRunner, robots_enabled
from pbm_emergo.config import Config
from pbm_emergo.db.session import get_sessionmaker
from pbm_emergo.db.types import utcnow
from pbm_emergo.ops.processes import HELPERS, lower_priority, named, parent_watch
from pbm_emergo.telemetry.logs import setup_logging

log = logging.getLogger(__name__)


def robot_runner(
    factory: sessionmaker[Session],
    config: Config,
    *,
    clock: Callable[[], datetime] = utcnow,
    poll_seconds: float = 1.0,
) -> RobotRunner:
    """A robot runner whose board mails go to the outbox as the scheduler's do."""
    outbox = Outbox(config, clock=clock)
    return RobotRunner(factory, config, outbox=outbox, clock=clock, poll_seconds=poll_seconds)


class RobotPlayer:
    """The robot runner of ``pbm-emergo serve``: a process of its own (``processes``), or a
    thread (tests). Does nothing when ``PBM_EMERGO_ROBOTS=off``."""

    def __init__(
        self,
        config: Config,
        factory: sessionmaker[Session],
        *,
        poll_seconds: float,
        clock: Callable[[], datetime] = utcnow,
        processes: bool = False,
    ) -> None:
        self.config = config
        self.factory = factory
        self.poll_seconds = poll_seconds
        self.clock = clock
        self.processes = processes
        self.enabled = robots_enabled()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.context = HELPERS
        self.flag: Any = None
        self.process: Any = None

    def start(self) -> None:
        if not self.enabled:
            return
        if self.processes:
            self.flag = self.context.RawValue("b", 0)
            self._spawn()
            return
        runner = robot_runner(self.factory, self.config, clock=self.clock,
                              poll_seconds=self.poll_seconds)
        self.thread = threading.Thread(
            target=runner.run, args=(self.stopping,), name="robots", daemon=True
        )
        self.thread.start()

    def _spawn(self) -> None:
        self.process = self.context.Process(
            target=run_robot_process,
            name="robots",
            args=(self.config, self.flag, self.poll_seconds, logging.getLogger().level),
            daemon=True,
        )
        self.process.start()

    def check(self) -> None:
        """Start the robot process again if it died."""
        if self.process is not None and not self.process.is_alive() and not self.stopping.is_set():
            log.error("the robot process exited with %s; starting it again",
                      self.process.exitcode)
            self._spawn()
            log.info("started again: %s", named([self.process]))

    def stop(self, timeout: float = 60.0) -> None:
        """Stop; a robot in mid-thought drops its task (it is found again after a restart)."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout)
        if self.process is not None:
            self.flag.value = 1
            self.process.join(min(timeout, 2.0))
            if self.process.is_alive():
                self.process.terminate()  # nothing is lost: the move was not stored
                self.process.join(timeout)


class RobotStop:
    """The stop flag of the robot process: the server's, or the main process gone."""

    def __init__(self, flag: Any) -> None:
        self.flag = flag
        self.parent_gone = parent_watch()
        self.event = threading.Event()

    def is_set(self) -> bool:
        return bool(self.flag.value) or self.parent_gone() or self.event.is_set()

    def wait(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while not self.is_set() and time.monotonic() < deadline:
            self.event.wait(min(0.2, max(0.0, deadline - time.monotonic())))
        return self.is_set()


def run_robot_process(
    config: Config, flag: Any, poll_seconds: float, log_level: int
) -> None:
    """The body of the robot process (see :class:`RobotPlayer`)."""
    # The one log format of every component (text or JSON, config.log_format).
    setup_logging(log_level, config.log_format)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides when to stop
    lower_priority(config.worker_nice)  # as the workers (see Config.worker_nice)
    stop = RobotStop(flag)
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.event.set())
    robot_runner(get_sessionmaker(config), config, poll_seconds=poll_seconds).run(stop)


__all__ = ["RobotPlayer", "RobotStop", "robot_runner", "run_robot_process"]
