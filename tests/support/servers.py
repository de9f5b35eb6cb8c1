"""Running ``pbm-emergo web`` and ``pbm-emergo serve`` (``--http-port``, or as an operator
starts it for mail: :func:`serving`) for real, as subprocesses on free loopback ports, and
waiting for them; finding the helper processes of a running ``serve``."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.mail import SERVER_ADDRESS, free_port, wait_for
from tests.support.waits import scaled


def descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (Linux /proc): its children, theirs, and so on. The
    server's helpers are children of its fork server, grandchildren of ``serve``."""
    found: set[int] = set()
    parents = [pid]
    while parents:
        parent = parents.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except FileNotFoundError:  # it ended meanwhile
            continue
        found.update(map(int, children))
        parents.extend(map(int, children))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def helper_pids(log_text: str) -> dict[str, int]:
    """Name -> pid of the helpers that ``serve``'s log line ``processes: ...`` names
    (the first such line: the ones it started with)."""
    for line in log_text.splitlines():
        if "processes: " in line:
            named = line.split("processes: ", 1)[1]
            return {name: int(pid) for name, pid in re.findall(r"(\S+) \(pid (\d+)\)", named)}
    return {}


def wait_for_http(url: str, process: subprocess.Popen[bytes], seconds: float = 60.0) -> None:
    """Wait until something answers at ``url`` (``seconds`` scaled for this machine)."""
    seconds = scaled(seconds)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing answered at {url} within {seconds:g} s")


@contextmanager
def running(args: list[str], url: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``python -m pbm_emergo ARGS`` until the block ends, then SIGTERM; it must exit 0."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "pbm_emergo", *args], stdout=out, stderr=subprocess.STDOUT,
            env=env,
        )
        try:
            wait_for_http(url, process)
            yield process
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                status = process.wait(timeout=scaled(60))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                raise
    assert status == 0, log.read_text()


def web_server(database_url: str, log: Path) -> tuple[str, list[str]]:
    """The URL and the arguments of ``pbm-emergo web`` on a free port."""
    port = free_port()
    return f"http://127.0.0.1:{port}", [
        "web", "--database-url", database_url, "--port", str(port), "--log-level", "WARNING",
    ]


def _clean_env() -> dict[str, str]:
    """The environment without PBM_EMERGO_* and PROMETHEUS_* settings, output unbuffered."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PBM_EMERGO_", "PROMETHEUS_"))}
    env["PYTHONUNBUFFERED"] = "1"
    return env


@dataclass
class Serving:
    """A running ``serve``: its process, its SMTP port and its log file."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def serving(
    data_dir: Path, *args: str, log: Path, database_url: str | None = None
) -> Iterator[Serving]:
    """``pbm-emergo serve --data-dir DATA_DIR ARGS`` on a free port with one listener and one
    worker (so that every mail meets the main process's listener), the server's address
    :data:`SERVER_ADDRESS`; ``database_url`` None: the embedded SQLite in DATA_DIR."""
    port = free_port()
    command = [sys.executable, "-m", "pbm_emergo", "serve", "--data-dir", str(data_dir),
               "--port", str(port), "--address", SERVER_ADDRESS, "--listeners", "1",
               "--workers", "1", *args]
    if database_url is not None:
        command += ["--database-url", database_url, "--migrate"]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                   env=_clean_env())
    server = Serving(process, port, log)
    try:
        wait_for(lambda: process.poll() is not None or "listening on" in server.log_text(),
                 timeout=120, interval=0.2)
        assert process.poll() is None, server.log_text()
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            status = process.wait(timeout=scaled(90))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
    assert status == 0, server.log_text()[-5000:]


def processed(server: Serving) -> int:
    """How many mails the server's workers finished (their one line per mail)."""
    return server.log_text().count("pbm_emergo.mail.worker: mail id=")


def stop_all(processes: list[subprocess.Popen[bytes]], seconds: float = 90.0) -> list[bytes | None]:
    """Wait for ``processes``, already told to stop (SIGTERM), to exit: ``seconds`` in all
    (scaled), longer than a server's own 60 s for its helpers. Ones still running then are
    killed, so that none outlives its test, and the test fails. Returns each one's output
    (None where it was not piped)."""
    deadline = time.monotonic() + scaled(seconds)
    outputs: list[bytes | None] = []
    try:
        for process in processes:
            output, _ = process.communicate(timeout=max(0.0, deadline - time.monotonic()))
            outputs.append(output)
    except subprocess.TimeoutExpired:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.communicate()
        raise
    return outputs
