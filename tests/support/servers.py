"""Running ``pbm-emergo web`` and ``pbm-emergo serve --http-port`` for real, as
subprocesses on free loopback ports, and waiting for them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.mail import free_port


def wait_for_http(url: str, process: subprocess.Popen[bytes], seconds: float = 60.0) -> None:
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
    raise AssertionError(f"nothing answered at {url} within {seconds} s")


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
                status = process.wait(timeout=60)
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
