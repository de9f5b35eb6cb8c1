"""``pbm-emergo serve`` as an operator starts it: a subprocess of the real command line,
listening for SMTP on a free loopback port, its log (stdout and stderr) in a file, stopped by
SIGTERM (it must exit 0)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.ops.support import clean_env
from tests.support.mail import SERVER_ADDRESS, free_port, wait_for


@dataclass
class Serving:
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
                                   env=clean_env(PYTHONUNBUFFERED="1"))
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
            status = process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
    assert status == 0, server.log_text()[-5000:]


def processed(server: Serving) -> int:
    """How many mails the server's workers finished (their one line per mail)."""
    return server.log_text().count("pbm_emergo.mail.worker: mail id=")
