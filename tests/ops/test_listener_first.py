"""`serve` lets its listeners go first: while a client keeps talking, the workers and the
sender wait for them, but only for a bounded time (pbm_emergo.mail.activity)."""

from __future__ import annotations

import signal
import smtplib
import subprocess
import sys
import threading
import time
from itertools import pairwise
from pathlib import Path

import pytest

from tests.support.mail import SERVER_ADDRESS, command_mail, free_port, send, wait_for
from tests.support.waits import scaled

from .support import clean_env


@pytest.mark.slow
def test_a_client_that_never_stops_talking_delays_replies_but_never_stops_them(
    tmp_path: Path,
) -> None:
    port = free_port()
    data = tmp_path / "data"
    process = subprocess.Popen(
        [sys.executable, "-m", "pbm_emergo", "serve", "--data-dir", str(data),
         "--port", str(port), "--address", SERVER_ADDRESS, "--workers", "1",
         "--listeners", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=clean_env(),
    )  # fmt: skip
    stop = threading.Event()
    noops: list[float] = []

    def chatter() -> None:
        # A session that never falls quiet for 5 ms: a NOOP every millisecond or so.
        with smtplib.SMTP("127.0.0.1", port, local_hostname="chatty.test", timeout=30) as smtp:
            while not stop.is_set():
                smtp.noop()
                noops.append(time.monotonic())
                time.sleep(0.001)

    new = data / "outbox-maildir" / "new"
    talker: threading.Thread | None = None
    try:
        wait_for(lambda: _answers(port), timeout=60, interval=0.2)
        # A first mail and its reply: the workers and the sender are up.
        send(port, command_mail("help", sender="alice@example.org",
                                message_id="<first@example.org>"))
        wait_for(lambda: _replies(new) == 1, timeout=60, interval=0.05)
        talker = threading.Thread(target=chatter, daemon=True)
        talker.start()
        wait_for(lambda: len(noops) > 100, timeout=30)
        sent = time.monotonic()
        send(port, command_mail("help", sender="alice@example.org",
                                message_id="<second@example.org>"))
        wait_for(lambda: _replies(new) == 2, timeout=60, interval=0.05)
        replied = time.monotonic()
        assert talker.is_alive()  # the reply came while the client went on talking
        # The reply waited for the budget (2 s for the worker, then up to 2 s for the
        # sender), unless the client fell quiet for 5 ms on the way (a busy machine can
        # hold the talking thread back that long), which lets them go at once.
        during = [t for t in noops if sent <= t <= replied]
        longest_pause = max((b - a for a, b in pairwise(during)), default=1.0)
        assert replied - sent >= 1.5 or longest_pause >= 0.005, (replied - sent, longest_pause)
    finally:
        stop.set()
        if talker is not None:
            talker.join(30)  # its session ends (QUIT) before the server stops
        process.send_signal(signal.SIGTERM)
        process.wait(scaled(60))


def _answers(port: int) -> bool:
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=5) as smtp:
            return smtp.noop()[0] == 250
    except OSError:
        return False


def _replies(maildir: Path) -> int:
    return len(list(maildir.iterdir())) if maildir.is_dir() else 0
