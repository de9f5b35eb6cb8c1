"""`serve` runs its inbox workers, outbox sender and robots at a lower CPU priority than the
listener (``worker_nice``), so that a burst of work does not slow down accepting mail."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mail.support import SERVER_ADDRESS, free_port, wait_for

from .support import clean_env


def nice_of(pid: int) -> int:
    """The nice value of a process (field 19 of /proc/PID/stat)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rpartition(")")[2].split()[16])


def children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def started_with(pid: int, text: bytes) -> bool:
    try:
        return text in Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return False


def worker_nices(tmp_path: Path, *options: str) -> tuple[int, list[int]]:
    """Start `serve` with ``options``; the listener's nice and those of its worker-like
    children (spawned by multiprocessing: workers, sender, robots), once they all run."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "pbm_emergo", "serve", "--data-dir", str(tmp_path / "data"),
         "--port", str(port), "--address", SERVER_ADDRESS, "--workers", "2", *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=clean_env(),
    )  # fmt: skip
    try:
        # Two workers, the sender and the robot runner (the cache manager and the resource
        # tracker are spawned too, and keep the listener's priority: they do no work).
        def spawned() -> list[int]:
            found = [p for p in children(process.pid)
                     if started_with(p, b"spawn_main") and not started_with(p, b"resource_tracker")]
            return found if len(found) >= 5 else []

        workers = wait_for(spawned, timeout=60, interval=0.2)
        # A child lowers its priority as it starts: wait until each has (or never will).
        wait_for(lambda: sum(nice_of(p) > nice_of(process.pid) for p in workers) >= 4,
                 timeout=30, interval=0.2)
        return nice_of(process.pid), sorted(nice_of(p) for p in workers)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)


@pytest.mark.slow
def test_workers_sender_and_robots_run_nicer_than_the_listener(tmp_path: Path) -> None:
    listener, nices = worker_nices(tmp_path)
    base = os.nice(0)
    assert listener == base
    # The cache manager keeps the listener's priority; the four others are 10 nicer.
    assert nices.count(min(base + 10, 19)) == 4, nices
    assert nices.count(base) == 1, nices
