"""`serve` runs its inbox workers, outbox sender and robots at a lower CPU priority than the
listener (``worker_nice``), so that a burst of work does not slow down accepting mail; their
write transactions keep the listener's priority, so that a niced process holding SQLite's
write lock does not keep the listener waiting (priority inversion)."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.mail import SERVER_ADDRESS, free_port, wait_for
from tests.support.servers import helper_pids
from tests.support.waits import scaled

from .support import clean_env


def nice_of(pid: int) -> int:
    """The nice value of a process (field 19 of /proc/PID/stat)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rpartition(")")[2].split()[16])


def thread_nices(pid: int) -> list[int]:
    """The nice values of the threads of a process (on Linux each thread has its own)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        found.append(int(stat.rpartition(")")[2].split()[16]))
    return found


def worker_nices(tmp_path: Path, *options: str) -> tuple[int, dict[str, int]]:
    """Start `serve` with ``options``; the listener's nice and those of its helpers by the
    names its log gives them (workers, sender, robots, the second listener), once each has
    lowered its priority or never will."""
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "pbm_emergo", "serve", "--data-dir", str(tmp_path / "data"),
             "--port", str(port), "--address", SERVER_ADDRESS, "--workers", "2",
             "--listeners", "2", *options],
            stdout=out, stderr=subprocess.STDOUT, env=clean_env(),
        )  # fmt: skip
    try:
        helpers = wait_for(lambda: helper_pids(log.read_text()), timeout=60, interval=0.2)
        assert set(helpers) == {"listener-2", "worker-1", "worker-2", "outbox", "robots"}
        # A helper lowers its priority as it starts: wait until the four have (or never will).
        wait_for(lambda: sum(nice_of(p) > nice_of(process.pid) for p in helpers.values()) >= 4,
                 timeout=30, interval=0.2)
        # Each niced process keeps one thread at the listener's priority: its writes.
        for pid in helpers.values():
            if nice_of(pid) > nice_of(process.pid):
                assert nice_of(process.pid) in thread_nices(pid), (pid, thread_nices(pid))
        return nice_of(process.pid), {name: nice_of(pid) for name, pid in helpers.items()}
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(scaled(60))


@pytest.mark.slow
def test_workers_sender_and_robots_run_nicer_than_the_listener(tmp_path: Path) -> None:
    listener, nices = worker_nices(tmp_path)
    base = os.nice(0)
    assert listener == base
    # The second listener keeps the listener's priority; the four others are 19 nicer (the
    # default), as far as the OS goes.
    niced = min(base + 19, 19)
    assert nices == {"listener-2": base, "worker-1": niced, "worker-2": niced, "outbox": niced,
                     "robots": niced}, nices


_WRITES_PROBE = """
import os, threading
from pbm_emergo.db.session import in_write_turn, lower_priority_but_not_writes, write_turn
here = lambda: (threading.current_thread().name, os.getpriority(os.PRIO_PROCESS, 0))
before = in_write_turn(here)
base = os.getpriority(os.PRIO_PROCESS, 0)
lower_priority_but_not_writes(5)
after = here()
writes = in_write_turn(here)
nested = in_write_turn(lambda: in_write_turn(here))
decorated = write_turn(here)()
def fail():
    raise ValueError("no room")
try:
    in_write_turn(fail)
    error = None
except ValueError as exc:
    error = str(exc)
print(repr((before, base, after, writes, nested, decorated, error)))
"""


def test_write_transactions_keep_the_priority_the_process_had() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _WRITES_PROBE], capture_output=True, text=True, check=True,
        env=clean_env(),
    ).stdout
    before, base, after, writes, nested, decorated, error = ast.literal_eval(out)
    assert before == ("MainThread", base)  # no writes thread yet: run where called
    assert after == ("MainThread", min(base + 5, 19))  # the calling thread is nicer now
    assert writes[0].startswith("writes") and writes[1] == base  # the writes keep it
    assert nested == writes  # a write turn inside one runs in place (no deadlock)
    assert decorated == writes  # @write_turn: the same, as a decorator
    assert error == "no room"  # an error in the writes thread reaches the caller
