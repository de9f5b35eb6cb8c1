"""The listeners go first: while SMTP clients are sending, the workers and the outbox
sender wait, for a bounded time.

An SMTP client waits for every answer; a stored mail waits for nobody. While mail is
coming in, a worker or the sender taking a CPU or the database's write turn makes every
client wait longer (measured with ``bench/pipeline.py``: with the workers and the sender
waiting as below, the listeners accepted about a fifth more mail a second; see README,
"Performance"). So each listener process notes in shared memory when it last heard from or
answered a client (:class:`ListenerActivity`), and before each mail or batch a worker or
the sender waits until the listeners have had a moment of quiet (:data:`QUIET_SECONDS`).

That wait is bounded by a budget (:class:`Deference`), a token bucket: a process may wait
up to :data:`BURST_SECONDS` at a stretch, and in the long run it waits at most
:data:`SHARE` times as long as it works. So a burst of mail (up to a couple of seconds) is
accepted at full speed and processed right after it, and under a flood that does not stop,
processing still goes on at two thirds of its speed or more instead of starving.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from typing import Any, Protocol

QUIET_SECONDS = 0.005
BURST_SECONDS = 2.0
SHARE = 0.5


class _Stop(Protocol):
    def is_set(self) -> bool: ...


class ListenerActivity:
    """A ``time.monotonic()`` in shared memory: when a listener last heard from or answered
    a client.
    The processes of one server on one machine share it (the monotonic clock is the same
    for all of them). Writes from several processes may race; one of two nearly equal
    times can then be lost, which does not matter here."""

    def __init__(self, shared: Any = None) -> None:
        self.shared = shared if shared is not None else multiprocessing.RawValue("d", 0.0)

    def heard(self) -> None:
        """A listener read something from a client, or answered one."""
        self.shared.value = time.monotonic()

    def last_heard(self) -> float:
        return float(self.shared.value)


class Deference:
    """One process's waits for the listeners (see the module's docstring)."""

    def __init__(
        self,
        activity: ListenerActivity,
        *,
        quiet: float = QUIET_SECONDS,
        burst: float = BURST_SECONDS,
        share: float = SHARE,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.activity = activity
        self.quiet = quiet
        self.burst = burst
        self.share = share
        self.clock = clock
        self.sleep = sleep
        self.budget = burst
        self._last = clock()

    def wait(self, stop: _Stop | None = None) -> float:
        """Wait until the listeners have heard nothing for ``quiet`` seconds, as long as the
        budget lasts and ``stop`` is not set; returns the seconds waited."""
        start = now = self.clock()
        # The budget grows by ``share`` of the time worked since the last wait, up to
        # ``burst``.
        self.budget = min(self.burst, self.budget + (now - self._last) * self.share)
        deadline = start + self.budget
        while stop is None or not stop.is_set():
            pause = min(self.activity.last_heard() + self.quiet, deadline) - now
            if pause <= 0:
                break
            self.sleep(pause)
            now = self.clock()
        self._last = now
        waited = now - start
        self.budget = max(0.0, self.budget - waited)
        return waited
