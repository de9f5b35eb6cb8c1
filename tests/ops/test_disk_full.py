"""Disk full, and the database unwritable: the listener answers 4xx (never 250 for mail it
did not store), and the server recovers by itself once the disk has room again.

The SQLite database lives on a small tmpfs mounted for the test (as root; skipped where
mounting is not allowed): the disk is filled with a file until it has no room left, and in
the second test the filesystem is remounted read-only under the running server, which
makes every write fail also for root. The server is the real one (listener, workers, sender
as threads of this process), mail goes in over SMTP, replies to a real relay."""

from __future__ import annotations

import errno
import os
import smtplib
import subprocess
import time
from collections.abc import Iterator
from datetime import timedelta
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from pbm_emergo.config import Config
from pbm_emergo.db.models import InboundMessage
from pbm_emergo.db.session import create_engine_for, upgrade_to_head
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support.mail import SERVER_ADDRESS, Relay, command_mail, free_port, wait_for

FAST = Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1))
DISK_BYTES = 6 * 1024 * 1024
BODY = "x" * 150_000  # each mail needs room of its own


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mountpoint = tmp_path / "disk"
    mountpoint.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", str(mountpoint)],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], check=False)


def fill(path: Path) -> Path:
    """Fill the filesystem of ``path`` with one file until nothing more fits."""
    filler = path / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 512, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def submit(port: int, n: int) -> int:
    """Send mail ``n`` once; the SMTP code of the answer to DATA (or RCPT)."""
    msg = command_mail("help", sender=f"p{n}@example.org", body=BODY,
                       message_id=f"<full-{n}@example.org>")
    try:
        with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test", timeout=30) as smtp:
            smtp.sendmail(f"p{n}@example.org", [SERVER_ADDRESS], msg.as_bytes(policy=policy.SMTP))
    except smtplib.SMTPResponseException as exc:
        return exc.smtp_code
    except smtplib.SMTPRecipientsRefused as exc:
        return next(iter(exc.recipients.values()))[0]
    return 250


def stored(sessions: sessionmaker[Session]) -> set[str]:
    with sessions() as session:
        return set(session.scalars(select(InboundMessage.message_id)))


def unfinished(sessions: sessionmaker[Session]) -> int:
    with sessions() as session:
        return session.scalar(
            select(func.count()).select_from(InboundMessage)
            .where(InboundMessage.status.notin_(("done", "ignored")))
        ) or 0


@pytest.fixture
def server_on(small_disk: Path) -> Iterator[tuple[MailServer, sessionmaker[Session], Relay]]:
    relay = Relay()
    relay.start()
    config = Config(data_dir=small_disk / "data", smtp_port=free_port(),
                    address=SERVER_ADDRESS, outbound=relay.url)
    upgrade_to_head(config)
    engine = create_engine_for(config.effective_database_url)
    sessions = sessionmaker(engine, expire_on_commit=False)
    server = MailServer(config, sessions, backoff=FAST, poll_seconds=0.2)
    server.start()
    try:
        yield server, sessions, relay
    finally:
        server.stop()
        engine.dispose()
        relay.stop()


def _recovers(server: MailServer, sessions: sessionmaker[Session], relay: Relay,
              refused: list[int], answered: dict[int, int]) -> None:
    """Every refused mail sent again (as its MTA would) is now taken; every mail taken is
    answered once, none is dead."""
    port = server.config.smtp_port
    for n in refused:
        answered[n] = wait_for(lambda n=n: (code := submit(port, n)) == 250 and code,
                               timeout=30, interval=0.5)
    taken = {f"<full-{n}@example.org>" for n, code in answered.items() if code == 250}
    assert stored(sessions) == taken
    wait_for(lambda: unfinished(sessions) == 0, timeout=60, interval=0.2)
    replies = [str(m["In-Reply-To"]) for m in relay.handler.messages()]
    wait_for(lambda: len(relay.handler.messages()) == len(taken), timeout=60)
    replies = [str(m["In-Reply-To"]) for m in relay.handler.messages()]
    assert sorted(replies) == sorted(taken)


def test_a_full_disk_gets_451_and_the_server_recovers_by_itself(
    server_on: tuple[MailServer, sessionmaker[Session], Relay], small_disk: Path
) -> None:
    server, sessions, relay = server_on
    port = server.config.smtp_port
    assert submit(port, 0) == 250
    wait_for(lambda: len(relay.handler.messages()) == 1)
    filler = fill(small_disk)
    answered: dict[int, int] = {}
    for n in range(1, 30):
        answered[n] = submit(port, n)
        if answered[n] != 250:
            break
    refused = [n for n, code in answered.items() if code != 250]
    assert refused, "the full disk never refused a mail"
    assert all(answered[n] == 451 for n in refused)
    # Never 250 for mail that was not stored, never stored what was refused.
    assert stored(sessions) == {"<full-0@example.org>"} | {
        f"<full-{n}@example.org>" for n, code in answered.items() if code == 250
    }
    time.sleep(2)  # the workers and the sender meet the full disk too
    filler.unlink()
    answered[0] = 250
    _recovers(server, sessions, relay, refused, answered)


@pytest.mark.postgres
def test_a_read_only_postgresql_database_gets_451_and_the_server_recovers_by_itself(
    postgres_database_url: str,
) -> None:
    """PostgreSQL refusing writes (the database set read-only, as when it runs out of disk
    or an operator fences it): 451 while it lasts, and every mail once it is over."""
    admin = create_engine(postgres_database_url, isolation_level="AUTOCOMMIT")
    name = make_url(postgres_database_url).database

    def read_only(on: bool) -> None:
        with admin.connect() as conn:
            conn.execute(text(f"ALTER DATABASE {name} SET default_transaction_read_only = "
                              f"{'on' if on else 'off'}"))
            # The setting holds for new sessions: end the server's.
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE datname = :name AND pid <> pg_backend_pid()"),
                         {"name": name})

    relay = Relay()
    relay.start()
    config = Config(database_url=postgres_database_url, smtp_port=free_port(),
                    address=SERVER_ADDRESS, outbound=relay.url)
    engine = create_engine_for(postgres_database_url)
    sessions = sessionmaker(engine, expire_on_commit=False)
    server = MailServer(config, sessions, backoff=FAST, poll_seconds=0.2)
    # The test looks through connections of its own, one a look: the server's pool keeps
    # connections the terminate below ended, which the server finds and replaces by
    # itself (what the test checks); a look of the test's could meet one first.
    looks_engine = create_engine(postgres_database_url, poolclass=NullPool)
    looks = sessionmaker(looks_engine)
    server.start()
    try:
        port = config.smtp_port
        assert submit(port, 0) == 250
        wait_for(lambda: len(relay.handler.messages()) == 1)
        read_only(True)
        try:
            answered = {n: submit(port, n) for n in range(1, 4)}
            assert set(answered.values()) == {451}
            assert stored(looks) == {"<full-0@example.org>"}
            time.sleep(2)  # the workers and the sender meet it too
        finally:
            read_only(False)
        answered[0] = 250
        _recovers(server, looks, relay, [1, 2, 3], answered)
    finally:
        server.stop()
        engine.dispose()
        looks_engine.dispose()
        admin.dispose()
        relay.stop()
