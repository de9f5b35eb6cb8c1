"""Where a worker's time goes, mail by mail: named sections of wall time.

A worker thread opens a tally (:func:`tally`) for each mail; code on its path marks its
sections (``with timed("argon2"): ...``). Sections are exclusive: one opened inside another
pauses the outer one, so the sections of a mail add up to its time, and time in no section
is the worker's own (parsing, the commands' logic). Outside a tally, :func:`timed` costs one
attribute lookup. The worker logs each mail's sections (its ``mail`` log line), which is
how ``bench/pipeline.py --timeline`` shows where a worker's time goes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: The sections the code marks, in the order a mail meets them.
SECTIONS = ("claim", "read", "cache", "argon2", "rules", "render", "write")

_local = threading.local()


class Tally:
    """The seconds of one mail's sections, as they are timed."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.seconds: dict[str, float] = {}
        self._open: list[str] = []  # the sections open, innermost (the one running) last
        self._since = 0.0  # when the innermost one last started running

    def enter(self, name: str) -> None:
        now = time.perf_counter()
        if self._open:
            self._add(self._open[-1], now)
        self._open.append(name)
        self._since = now

    def leave(self) -> None:
        now = time.perf_counter()
        self._add(self._open.pop(), now)
        self._since = now

    def _add(self, name: str, now: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + now - self._since

    def milliseconds(self) -> dict[str, float]:
        """Each section's time in ms (one decimal), in the order of :data:`SECTIONS`."""
        order = {name: n for n, name in enumerate(SECTIONS)}
        return {
            name: round(seconds * 1000, 1)
            for name, seconds in sorted(self.seconds.items(), key=lambda i: order.get(i[0], 99))
        }


@contextmanager
def tally() -> Iterator[Tally]:
    """Time the sections this thread enters until the block ends."""
    outer = getattr(_local, "tally", None)
    current = _local.tally = Tally()
    try:
        yield current
    finally:
        _local.tally = outer


class timed:  # noqa: N801 - named as the function it reads as: ``with timed("render"):``
    """Count the block as section ``name`` of the current tally, if there is one. A class
    rather than a generator: a mail passes a score of these, and a generator's context
    manager costs several times as much to make and run."""

    __slots__ = ("_name", "_tally")

    def __init__(self, name: str) -> None:
        self._name = name
        self._tally: Tally | None = None

    def __enter__(self) -> None:
        current: Tally | None = getattr(_local, "tally", None)
        if current is not None:
            current.enter(self._name)
            self._tally = current

    def __exit__(self, *_exc: object) -> None:
        if self._tally is not None:
            self._tally.leave()


__all__ = ["SECTIONS", "Tally", "tally", "timed"]
