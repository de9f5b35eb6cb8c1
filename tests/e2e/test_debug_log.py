"""No log level writes a mail's content: ``pbm-emergo serve --log-level DEBUG`` (a real
subprocess, as an operator chasing a problem starts it) takes two signups, their
confirmations, a challenge and a move with a comment through a real SMTP client, and none
of the passwords is anywhere in its log, on SQLite and on PostgreSQL. Below INFO aiosmtpd
logs every DATA line (``DATA readline: b'Subject: signup alice PASSWORD'``); the server
keeps that logger at INFO (pbm_emergo.telemetry.logs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbm_emergo.config import Config
from pbm_emergo.db.session import dispose_engines, get_sessionmaker
from tests.support.mail import command_mail, send, wait_for
from tests.support.servers import Serving, processed, serving
from tests.support.signup import codes_in_outbox

ALICE_PASSWORD = "Kx-alice-Debug7"
BOB_PASSWORD = "Kx-bob-Debug8"
PASSWORDS = (ALICE_PASSWORD, BOB_PASSWORD)


def mail(server: Serving, subject: str, sender: str, body: str = "") -> None:
    """Send one mail and wait until a worker has finished it."""
    before = processed(server)
    send(server.port, command_mail(subject, sender=sender, body=body))
    wait_for(lambda: processed(server) > before, timeout=60, interval=0.1)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql",
                                                            marks=pytest.mark.postgres)])
def test_serve_at_debug_logs_no_password(
    tmp_path: Path, request: pytest.FixtureRequest, backend: str
) -> None:
    database_url = (None if backend == "sqlite"
                    else request.getfixturevalue("postgres_database_url"))
    data_dir = tmp_path / "data"
    config = Config(data_dir=data_dir, database_url=database_url)
    try:
        with serving(data_dir, "--log-level", "DEBUG", log=tmp_path / "serve.log",
                     database_url=database_url) as server:
            mail(server, f"signup alice {ALICE_PASSWORD}", "alice@example.org")
            mail(server, f"signup bob {BOB_PASSWORD}", "bob@example.org")
            codes = codes_in_outbox(get_sessionmaker(config))
            for address in ("alice@example.org", "bob@example.org"):
                mail(server, f"confirm {codes[address]}", address)
            mail(server, "emergo challenge alice bob", "alice@example.org")
            mail(server, f"emergo move 101 alice {ALICE_PASSWORD} e4#1", "alice@example.org",
                 body=f"Good luck! (bob, your password {BOB_PASSWORD} is in my notes)")
            log = server.log_text()
            assert re.search(r"mail id=\d+ sender=alice@example.org command=\"emergo move "
                             r"101 alice \*+ e4#1\" result=done", log), log[-3000:]
    finally:
        dispose_engines()
    log = server.log_text()
    # It ran at DEBUG, with aiosmtpd's session lines (INFO) and the server's DEBUG lines.
    assert " DEBUG " in log
    assert "mail.log: ('127.0.0.1'" in log
    for password in PASSWORDS:
        assert password not in log
        assert password.lower() not in log.lower()
    assert "DATA readline" not in log
