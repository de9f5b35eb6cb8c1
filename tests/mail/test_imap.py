"""The IMAP mailbox reader (pbm_emergo.mail.imap) against a real Dovecot on loopback: mail
stored in the durable inbox before it leaves the folder, IDLE waking the reader without a
poll, polling where the server has no IDLE, a Dovecot restart while mail arrives, a crash of
ours between storing and moving, the size limit, a mail slow to parse, STARTTLS and the
certificate check.

Needs the Debian package dovecot-imapd (.ci/run installs it); elsewhere skipped with the
reason, except under CI=true, where it fails.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import select

from pbm_emergo.config import Config
from pbm_emergo.db.models import InboundMessage
from pbm_emergo.db.session import dispose_engines, get_sessionmaker, upgrade_to_head
from pbm_emergo.mail import imap
from pbm_emergo.mail.imap import MailboxReader, inbox_server
from pbm_emergo.mail.inbound import InboxHandler
from pbm_emergo.ops.server import MailServer
from tests.support import dovecot
from tests.support.mail import command_mail, free_port, make_config, wait_for
from tests.support.waits import scaled

PROCESSED = "pbm-emergo.processed"  # Dovecot's maildir folders use "." between levels
REFUSED = "pbm-emergo.refused"
DEFERRED = "pbm-emergo.deferred"


def test_inbox_urls() -> None:
    server = inbox_server("imaps://games%40example.org@imap.example.org/Games")
    assert (server.security, server.host, server.port, server.user, server.folder) == (
        "tls", "imap.example.org", 993, "games@example.org", "Games")
    server = inbox_server("imap://u@h:1143")
    assert (server.security, server.port, server.folder) == ("starttls", 1143, "INBOX")
    with pytest.raises(ValueError, match="must not hold a password") as refused:
        inbox_server("imaps://u:hunter2@h/INBOX")
    assert "hunter2" not in str(refused.value)
    with pytest.raises(ValueError, match="imaps://USER@host"):
        inbox_server("pop3://u@h/INBOX")
    with pytest.raises(ValueError, match="no user"):
        inbox_server("imaps://h/INBOX")


def test_serve_inbox_sets_the_mailbox() -> None:
    from pbm_emergo.cli import build_parser
    from pbm_emergo.cli.serve import _config_from

    url = "imaps://games%40example.org@imap.example.org/INBOX"
    args = build_parser(["serve"]).parse_args(["serve", "--inbox", url])
    assert _config_from(args).inbox == url


def test_an_inbox_without_a_password_file_is_refused(tmp_path: Path) -> None:
    config = make_config(tmp_path, inbox="imaps://u@h/INBOX")
    with pytest.raises(ValueError, match="PBM_EMERGO_INBOX_PASSWORD_FILE"):
        MailboxReader(config, None)  # type: ignore[arg-type]


@pytest.fixture
def imap_server(tmp_path: Path) -> Iterator[dovecot.Dovecot]:
    reason = dovecot.unavailable_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true: not skipping)")
        pytest.skip(reason)
    server = dovecot.Dovecot()
    try:
        server.start()
        yield server
    finally:
        print(server.log_text()[-3000:])
        server.remove()


def inbox_config(tmp_path: Path, server: dovecot.Dovecot, **overrides: object) -> Config:
    values: dict[str, object] = {
        "inbox": server.url(), "inbox_password_file": server.password_file,
        "inbox_ca_file": server.ca_file, "inbox_poll_seconds": 300.0,
    }
    values.update(overrides)
    config = make_config(tmp_path, **values)
    upgrade_to_head(config)
    return config


def inbound_rows(config: Config) -> list[tuple[str, str | None]]:
    path = config.effective_database_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        return db.execute("SELECT envelope_sender, message_id FROM inbound_messages "
                          "ORDER BY id").fetchall()


class Crash(BaseException):
    """Stands in for the process dying: nothing of ours catches it."""


def test_a_crash_between_storing_and_moving_stores_the_mail_once(
    tmp_path: Path, imap_server: dovecot.Dovecot,
) -> None:
    config = inbox_config(tmp_path, imap_server)
    with_id = command_mail("emergo help", message_id="<crash-1@example.org>")
    without_id = command_mail("emergo help", sender="bob@example.org")
    imap_server.append(with_id)
    imap_server.append(without_id)
    sessions = get_sessionmaker(config)
    try:
        for attempt in range(3):
            reader = MailboxReader(config, InboxHandler(sessions, config))

            def crash(uid: int) -> None:
                raise Crash(uid)

            if attempt < 2:
                reader.after_store = crash
            stopping = threading.Event()
            try:
                # Dies after storing the first mail, before moving it; then again; then
                # runs through (and stops once it waits for more mail).
                reader.run(stopping, on_ready=stopping.set if attempt == 2 else None)
            except Crash:
                assert attempt < 2
            finally:
                reader.close()
        rows = inbound_rows(config)
        assert [sender for sender, _ in rows] == ["alice@example.org", "bob@example.org"]
        assert rows[0][1] == "<crash-1@example.org>"
        assert rows[1][1] is not None and rows[1][1].startswith("<imap.")
        assert imap_server.count("INBOX") == 0
        assert imap_server.count(PROCESSED) == 2
    finally:
        dispose_engines()


def run_server(config: Config) -> MailServer:
    server = MailServer(config, get_sessionmaker(config), poll_seconds=0.2)
    server.start()
    assert server.mailbox is not None and server.listener is None
    wait_for(server.mailbox.ready.is_set, timeout=30)
    return server


def test_idle_wakes_the_reader_without_a_poll(
    tmp_path: Path, imap_server: dovecot.Dovecot,
) -> None:
    config = inbox_config(tmp_path, imap_server)  # a poll only every 300 s
    server = run_server(config)
    try:
        time.sleep(1.0)  # the reader is waiting in IDLE
        imap_server.append(command_mail("emergo help", message_id="<idle-1@example.org>"))
        started = time.monotonic()
        wait_for(lambda: inbound_rows(config), timeout=10, interval=0.05)
        assert time.monotonic() - started < 5
        wait_for(lambda: imap_server.count(PROCESSED) == 1, timeout=10)
        assert imap_server.count("INBOX") == 0
    finally:
        server.stop()
        dispose_engines()


def test_a_server_without_idle_is_polled(
    tmp_path: Path, imap_server: dovecot.Dovecot, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level("INFO", logger="pbm_emergo.mail.imap")
    imap_server.stop()
    plain = dovecot.Dovecot(idle=False)
    try:
        plain.start()
        config = inbox_config(tmp_path, plain, inbox_poll_seconds=1.0,
                              inbox_processed="delete", inbox=plain.url(starttls=True))
        server = run_server(config)
        try:
            plain.append(command_mail("emergo help", message_id="<poll-1@example.org>"))
            wait_for(lambda: inbound_rows(config), timeout=15)
            wait_for(lambda: plain.count("INBOX") == 0, timeout=10)
            assert plain.count(PROCESSED) == 0  # deleted, by the setting
            assert f"reading {config.inbox} (polled every 1 s)" in caplog.text
        finally:
            server.stop()
            dispose_engines()
    finally:
        plain.remove()


def test_a_dovecot_restart_while_mail_arrives_loses_nothing(
    tmp_path: Path, imap_server: dovecot.Dovecot,
) -> None:
    config = inbox_config(tmp_path, imap_server)
    server = run_server(config)
    try:
        for n in range(12):
            if n == 6:
                imap_server.restart(down_seconds=1.0)
            imap_server.append(command_mail("emergo help", message_id=f"<r{n}@example.org>"))
        wait_for(lambda: len(inbound_rows(config)) == 12, timeout=60, interval=0.2)
        wait_for(lambda: imap_server.count(PROCESSED) == 12, timeout=30)
        assert sorted(m for _, m in inbound_rows(config)) == sorted(
            f"<r{n}@example.org>" for n in range(12))
        assert imap_server.count("INBOX") == 0
    finally:
        server.stop()
        dispose_engines()


def test_mail_over_the_size_limit_is_moved_aside_not_stored(
    tmp_path: Path, imap_server: dovecot.Dovecot,
) -> None:
    config = inbox_config(tmp_path, imap_server, max_message_size=4000)
    imap_server.append(command_mail("emergo help", body="x" * 6000,
                                    message_id="<big@example.org>"))
    imap_server.append(command_mail("emergo help", message_id="<small@example.org>"))
    server = run_server(config)
    try:
        wait_for(lambda: imap_server.count(PROCESSED) == 1, timeout=20)
        wait_for(lambda: imap_server.count(REFUSED) == 1, timeout=20)
        assert [m for _, m in inbound_rows(config)] == ["<small@example.org>"]
    finally:
        server.stop()
        dispose_engines()


def test_a_certificate_from_another_ca_is_refused_before_the_login(
    tmp_path: Path, imap_server: dovecot.Dovecot,
) -> None:
    untrusted = dovecot.Dovecot()  # only for its CA, which did not sign the server's
    other_ca = tmp_path / "other-ca.pem"
    other_ca.write_bytes(untrusted.ca_file.read_bytes())
    untrusted.remove()
    config = inbox_config(tmp_path, imap_server, inbox_ca_file=other_ca)
    reader = MailboxReader(config, InboxHandler(get_sessionmaker(config), config))
    logins = imap_server.log_text().count("Login: user=")
    try:
        with pytest.raises(OSError, match="CERTIFICATE_VERIFY_FAILED"):
            reader.connect(reader.server)
        for url in (imap_server.url(), imap_server.url(starttls=True)):
            good = dataclasses.replace(config, inbox=url, inbox_ca_file=imap_server.ca_file)
            checked = MailboxReader(good, InboxHandler(get_sessionmaker(good), good))
            checked.connect(checked.server).logout()
            checked.close()
        # Dovecot's log is written by a process of its own, a moment later: wait for its
        # lines. The refused connection closed naming no user: it never tried to log in
        # (Dovecot says "no auth attempts" or "before auth was ready", as the moment
        # falls); the two trusted ones logged in, and nobody else did.
        wait_for(lambda: len(_closed_without_a_user(imap_server.log_text())) == 1)
        wait_for(lambda: imap_server.log_text().count("Login: user=<games@example.org>")
                 >= logins + 2)
        assert imap_server.log_text().count("Login: user=") == logins + 2
    finally:
        reader.close()
        dispose_engines()


def _closed_without_a_user(log: str) -> list[str]:
    """Dovecot's lines of connections that closed before any user logged in."""
    return [
        line for line in log.splitlines()
        if "imap-login:" in line and "Disconnected" in line and "user=<>" in line
    ]


@pytest.mark.slow
def test_a_refused_login_is_logged_without_the_password_and_retried(
    tmp_path: Path, imap_server: dovecot.Dovecot, caplog: pytest.LogCaptureFixture,
) -> None:
    wrong = tmp_path / "wrong-password"
    wrong.write_text("wrong-Secret-5d1e\n")
    config = inbox_config(tmp_path, imap_server, inbox_password_file=wrong)
    reader = MailboxReader(config, InboxHandler(get_sessionmaker(config), config))
    stopping = threading.Event()
    thread = threading.Thread(target=reader.run, args=(stopping,))
    thread.start()
    try:
        # Refused, then tried again after 1 s: the password file is read at each login.
        wait_for(lambda: caplog.text.count("cannot log in to") >= 1, timeout=20)
        wrong.write_text(dovecot.PASSWORD + "\n")
        imap_server.append(command_mail("emergo help", message_id="<late@example.org>"))
        wait_for(lambda: imap_server.count(PROCESSED) == 1, timeout=20)
    finally:
        stopping.set()
        thread.join(30)
        reader.close()
        dispose_engines()
    assert "AUTHENTICATIONFAILED" in caplog.text or "Authentication failed" in caplog.text
    assert "wrong-Secret-5d1e" not in caplog.text and dovecot.PASSWORD not in caplog.text


def stored_message_ids(config: Config) -> list[str | None]:
    with get_sessionmaker(config)() as session:
        return list(session.scalars(select(InboundMessage.message_id)
                                    .order_by(InboundMessage.id)))


def test_a_deferred_mail_is_set_aside_and_the_mails_after_it_are_stored(
    tmp_path: Path, imap_server: dovecot.Dovecot, database_url: str,
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The listener answers 451 to a mail written From a non-ASCII address while the relay
    cannot be asked whether replies can reach it (nothing listens at the outbound address):
    no test double, the listener's own check. That mail, the oldest, is set aside and the two
    after it are stored and moved; tried again at later looks, and still deferred
    DEFER_GIVE_UP after the first, it is moved to pbm-emergo/deferred for the operator."""
    monkeypatch.setattr(imap, "DEFER_PAUSE_FIRST", 0.5)
    monkeypatch.setattr(imap, "DEFER_GIVE_UP", 4.0)
    caplog.set_level("INFO", logger="pbm_emergo.mail.imap")
    config = inbox_config(tmp_path, imap_server, database_url=database_url,
                          outbound=f"smtp://127.0.0.1:{free_port()}", inbox_poll_seconds=1.0)
    joerg = command_mail("emergo help", sender="jörg@bücher.example",
                         message_id="<joerg@example.org>",
                         headers={"Return-Path": "<joerg-bounces@example.org>"})
    imap_server.append(joerg.as_bytes(policy=policy.SMTPUTF8))
    imap_server.append(command_mail("emergo help", message_id="<after-1@example.org>"))
    imap_server.append(command_mail("emergo help", sender="bob@example.org",
                                    message_id="<after-2@example.org>"))
    server = run_server(config)
    try:
        wait_for(lambda: imap_server.count(PROCESSED) == 2, timeout=30)
        assert stored_message_ids(config) == ["<after-1@example.org>", "<after-2@example.org>"]
        assert imap_server.count("INBOX") == 1
        assert "deferred (451 4.4.0" in caplog.text and "set aside" in caplog.text
        wait_for(lambda: imap_server.count(DEFERRED) == 1, timeout=30)
        assert imap_server.count("INBOX") == 0
        assert imap_server.count(PROCESSED) == 2
        assert stored_message_ids(config) == ["<after-1@example.org>", "<after-2@example.org>"]
        tries = re.search(r"deferred (\d+) times in \d+ s \(451 4\.4\.0", caplog.text)
        assert tries is not None and int(tries[1]) >= 2, caplog.text
    finally:
        server.stop()
        dispose_engines()


def test_a_look_in_which_every_mail_is_deferred_sets_none_aside(
    tmp_path: Path, imap_server: dovecot.Dovecot, database_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Nothing could be answered but 4xx (here: the only mail is deferred): the server's
    failure, not the mail's. Nothing is set aside, and the reader tries again after its
    reconnection pause, as after any failure."""
    config = inbox_config(tmp_path, imap_server, database_url=database_url,
                          outbound=f"smtp://127.0.0.1:{free_port()}")
    joerg = command_mail("emergo help", sender="jörg@bücher.example",
                         message_id="<joerg@example.org>",
                         headers={"Return-Path": "<joerg-bounces@example.org>"})
    imap_server.append(joerg.as_bytes(policy=policy.SMTPUTF8))
    reader = MailboxReader(config, InboxHandler(get_sessionmaker(config), config))
    stopping = threading.Event()
    thread = threading.Thread(target=reader.run, args=(stopping,))
    thread.start()
    try:
        wait_for(lambda: caplog.text.count("TemporaryFailure: 451 4.4.0") >= 2, timeout=30)
        assert reader.deferred == {}
        assert "set aside" not in caplog.text
        assert imap_server.count("INBOX") == 1
    finally:
        stopping.set()
        thread.join(30)
        reader.close()
        dispose_engines()


def test_a_mail_slow_to_parse_is_moved_aside_and_the_next_mail_is_stored(
    tmp_path: Path, imap_server: dovecot.Dovecot, database_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A From of encoded words 240 kB long (seconds for the email package to parse) is
    refused by the listener's bounds before it is parsed (554 5.6.0): moved to
    pbm-emergo/refused with a warning; the mail after it is stored as ever."""
    caplog.set_level("INFO", logger="pbm_emergo.mail.imap")
    config = inbox_config(tmp_path, imap_server, database_url=database_url)
    word = "=?utf-8?q?" + "=C3=A9" * 10 + "?="
    slow = ("From: " + "\r\n ".join([word] * 3300) + " <eve@evil.example>\r\n"
            "To: pbm@emergo.test\r\nSubject: help\r\nMessage-ID: <slow@evil.example>\r\n"
            "\r\nhelp\r\n").encode("ascii")
    assert len(slow) > 240_000
    imap_server.append(slow)
    imap_server.append(command_mail("emergo help", message_id="<after@example.org>"))
    server = run_server(config)
    try:
        wait_for(lambda: imap_server.count(PROCESSED) == 1, timeout=30)
        wait_for(lambda: imap_server.count(REFUSED) == 1, timeout=30)
        assert stored_message_ids(config) == ["<after@example.org>"]
        assert "refused (554 5.6.0 This mail cannot be read here" in caplog.text
    finally:
        server.stop()
        dispose_engines()


def test_a_refused_login_waits_a_minute_is_logged_once_and_shutdown_is_prompt(
    tmp_path: Path, imap_server: dovecot.Dovecot, caplog: pytest.LogCaptureFixture,
) -> None:
    from pbm_emergo.ops.mailbox_reader import MailboxThread

    wrong = tmp_path / "wrong-password"
    wrong.write_text("wrong-Secret-5d1e\n")
    config = inbox_config(tmp_path, imap_server, inbox_password_file=wrong)
    reader = MailboxThread(config, InboxHandler(get_sessionmaker(config), config))
    failed = imap_server.log_text().count("auth failed")
    reader.start()
    try:
        wait_for(lambda: "cannot log in to" in caplog.text, timeout=20)
        # Before, the password was tried again after 1, 2 and 4 s; now after a minute.
        time.sleep(4)
        assert caplog.text.count("cannot log in to") == 1
        assert "not tried again for 60 s" in caplog.text
        assert str(wrong) in caplog.text and "wrong-Secret-5d1e" not in caplog.text
        assert imap_server.log_text().count("auth failed") - failed <= 1
    finally:
        started = time.monotonic()
        reader.stop()
        stopped_in = time.monotonic() - started
        dispose_engines()
    assert stopped_in < 5


def test_shutdown_while_reading_in_idle_is_prompt(
    tmp_path: Path, imap_server: dovecot.Dovecot,
) -> None:
    from pbm_emergo.ops.mailbox_reader import MailboxThread

    config = inbox_config(tmp_path, imap_server)
    reader = MailboxThread(config, InboxHandler(get_sessionmaker(config), config))
    reader.start()
    try:
        assert reader.ready.wait(scaled(30))
    finally:
        started = time.monotonic()
        reader.stop()
        stopped_in = time.monotonic() - started
        dispose_engines()
    assert stopped_in < 5


def test_processed_mail_older_than_the_retention_is_deleted(
    tmp_path: Path, imap_server: dovecot.Dovecot,
) -> None:
    import imaplib

    from pbm_emergo.ops.mailbox_reader import MailboxThread

    client = imap_server.connect()
    try:
        client.create(PROCESSED.split(".")[0])
        client.create(PROCESSED)
        for days, message_id in ((40, "<old@example.org>"), (3, "<recent@example.org>")):
            raw = command_mail("emergo help", message_id=message_id).as_bytes(
                policy=policy.SMTP)
            received = imaplib.Time2Internaldate(time.time() - days * 86400)
            typ, data = client.append(PROCESSED, None, received, raw)
            assert typ == "OK", data
    finally:
        client.logout()
    config = inbox_config(tmp_path, imap_server, inbox_processed_days=30)
    reader = MailboxThread(config, InboxHandler(get_sessionmaker(config), config))
    reader.start()
    try:
        assert reader.ready.wait(scaled(30))
        wait_for(lambda: imap_server.count(PROCESSED) == 1, timeout=20)
    finally:
        reader.stop()
        dispose_engines()
    client = imap_server.connect()
    try:
        client.select(PROCESSED, readonly=True)
        typ, data = client.search(None, "HEADER", "Message-ID", "recent@example.org")
        assert typ == "OK" and len(data[0].split()) == 1
    finally:
        client.logout()


def test_shutdown_while_connecting_to_a_silent_server_is_prompt(tmp_path: Path) -> None:
    """A server that accepts and never greets: the reader waits in the connection (up to
    the socket timeout); a stop does not."""
    import socket

    from pbm_emergo.ops.mailbox_reader import MailboxThread

    password = tmp_path / "password"
    password.write_text("pw\n")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        config = make_config(tmp_path, inbox=f"imaps://u@127.0.0.1:{port}/INBOX",
                             inbox_password_file=password)
        upgrade_to_head(config)
        reader = MailboxThread(config, InboxHandler(get_sessionmaker(config), config))
        reader.start()
        try:
            conn, _ = silent.accept()  # the reader is connecting
        finally:
            started = time.monotonic()
            reader.stop()
            stopped_in = time.monotonic() - started
            dispose_engines()
        conn.close()
    assert stopped_in < 5
