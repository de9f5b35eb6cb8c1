"""Restarts: a claim names the process instance that made it (host, pid and a random id made
when the process starts), so that a server restarted with its predecessor's pid and host
name (PID 1 in a container) releases the predecessor's claims at once, instead of taking
them for its own and leaving that mail for the 10-minute lease; a ``multiple`` mail killed
in the middle of its lines goes on after the lines it stored."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db import claims, inbox
from pbm_emergo.db.models import InboundMessage
from pbm_emergo.db.types import utcnow
from pbm_emergo.mail.inbound import InboxHandler, Listener
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support.mail import SERVER_ADDRESS, Relay, command_mail, free_port, send, wait_for

FAST = Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1))


@pytest.fixture
def relay() -> Iterator[Relay]:
    server = Relay()
    server.start()
    yield server
    server.stop()


def test_a_restart_with_the_same_pid_releases_the_predecessors_claims_at_once(
    db_config: Config, db_sessions: sessionmaker[Session], relay: Relay
) -> None:
    config = dataclasses.replace(
        db_config, address=SERVER_ADDRESS, smtp_port=free_port(), outbound=relay.url
    )
    # The predecessor received two mails through its listener...
    listener = Listener(InboxHandler(db_sessions, config), config)
    listener.start()
    try:
        for n in (1, 2):
            send(config.smtp_port, command_mail("help", message_id=f"<held-{n}@example.org>"))
    finally:
        listener.stop()
    # ... and crashed while its workers held them. It had this process's host name and pid
    # (PID 1 in a container): one claim as claims are named now, one as named before.
    host = claims.worker_name().split(":")[0]
    predecessors = [f"{host}:{os.getpid()}:0123456789ab:inbox-1", f"{host}:{os.getpid()}:inbox-2"]
    with db_sessions.begin() as session:
        held = list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))
        for message, worker in zip(held, predecessors, strict=True):
            message.status = "processing"
            message.attempts = 1
            message.claimed_by = worker
            message.claimed_at = utcnow()
    server = MailServer(config, db_sessions, backoff=FAST, poll_seconds=0.2)
    started = time.monotonic()
    server.start()
    try:
        replies = wait_for(lambda: len(relay.handler.messages()) == 2 and relay.handler.messages())
    finally:
        server.stop()
    assert time.monotonic() - started < claims.DEFAULT_LEASE.total_seconds()
    assert sorted(str(r["In-Reply-To"]) for r in replies) == [
        "<held-1@example.org>", "<held-2@example.org>"]
    with db_sessions() as session:
        rows = list(session.scalars(select(InboundMessage)))
    assert [(r.status, r.attempts) for r in rows] == [("done", 2), ("done", 2)]


def test_each_process_start_names_its_claims_differently() -> None:
    script = "from pbm_emergo.db.claims import worker_name; print(worker_name())"
    names = {
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       check=True).stdout.strip()
        for _ in range(2)
    }
    assert len(names) == 2
    assert all(len(name.split(":")) == 4 for name in names)


def test_a_live_pid_that_started_after_the_claim_is_not_the_claimant(
    db_sessions: sessionmaker[Session],
) -> None:
    # A restarted server's worker processes may be given their predecessors' pids: such a
    # claim is released, while the claim of a process that was running already is kept.
    host = claims.worker_name().split(":")[0]
    with db_sessions.begin() as session:
        for n in (1, 2):
            inbox.enqueue_inbound(session, b"Subject: help\r\n\r\n", "a@example.org",
                                   [SERVER_ADDRESS], f"<live-{n}@example.org>", utcnow())
    before = utcnow()
    time.sleep(1.5)  # more than the start-time slack
    newer = subprocess.Popen(["sleep", "60"])
    try:
        with db_sessions.begin() as session:
            old_claim = inbox.claim_inbound(session, worker=f"{host}:{newer.pid}:aaaa:inbox-1",
                                             now=before)
            assert old_claim is not None
        with db_sessions.begin() as session:
            new_claim = inbox.claim_inbound(session, worker=f"{host}:{newer.pid}:bbbb:inbox-1",
                                             now=utcnow())
            assert new_claim is not None
        with db_sessions.begin() as session:
            assert claims.release_stale_claims(session, now=utcnow()) == (1, 0)
        with db_sessions() as session:
            statuses = {
                row.message_id: row.status
                for row in session.scalars(select(InboundMessage))
            }
    finally:
        newer.kill()
        newer.wait()
    assert statuses == {"<live-1@example.org>": "pending", "<live-2@example.org>": "processing"}


def test_the_claim_of_a_zombie_is_released_at_once(db_sessions: sessionmaker[Session]) -> None:
    # A crashed server's worker processes end with it, orphaned; until the init reaps them
    # (a container's may do so late or never) each is a zombie: its pid taken, but ended.
    host = claims.worker_name().split(":")[0]
    ended = subprocess.Popen(["true"])  # not waited for: a zombie of this process
    try:
        wait_for(lambda: Path(f"/proc/{ended.pid}/stat").read_text()
                 .rpartition(")")[2].split()[0] == "Z")
        with db_sessions.begin() as session:
            inbox.enqueue_inbound(session, b"Subject: help\r\n\r\n", "a@example.org",
                                   [SERVER_ADDRESS], "<zombie@example.org>", utcnow())
        with db_sessions.begin() as session:
            # Claimed after it started: its start does not tell it from the claimant.
            assert inbox.claim_inbound(session, worker=f"{host}:{ended.pid}:aaaa:inbox-1",
                                       now=utcnow()) is not None
        with db_sessions.begin() as session:
            assert claims.release_stale_claims(session, now=utcnow()) == (1, 0)
        with db_sessions() as session:
            assert session.scalars(select(InboundMessage.status)).one() == "pending"
    finally:
        ended.wait()


# --- the same as a real PID 1, in a PID namespace of its own -------------------------------

SERVER_SCRIPT = """
import dataclasses, signal, sys, threading
from pathlib import Path
from pbm_emergo.config import Config
from pbm_emergo.db.session import get_sessionmaker, upgrade_to_head
from pbm_emergo.ops.server import MailServer

data_dir, port, relay = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
# A dear password hash (20 times the passes of the default): each check of a password
# takes a good part of a second, so that a mail of wrong passwords keeps its worker busy.
config = Config(data_dir=data_dir, smtp_port=port, address="pbmserv@emergo.test",
                outbound=relay, workers=1, password_hash_time_cost=40)
upgrade_to_head(config)
server = MailServer(config, get_sessionmaker(config), poll_seconds=0.2)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *args: stop.set())
server.start()
print("pid", __import__("os").getpid(), flush=True)
stop.wait()
server.stop()
"""


def _pid_namespaces_work() -> bool:
    try:
        done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"],
                              capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _pid_one_of(unshare: subprocess.Popen[bytes]) -> int:
    """The host pid of the namespace's PID 1 (the child of ``unshare --fork``)."""
    children = Path(f"/proc/{unshare.pid}/task/{unshare.pid}/children").read_text().split()
    return int(children[0])


@pytest.mark.slow
@pytest.mark.skipif(not _pid_namespaces_work(), reason="needs unshare --pid (root)")
def test_a_server_killed_as_pid_1_and_restarted_as_pid_1_answers_the_mail_in_hand(
    tmp_path: Path, relay: Relay
) -> None:
    data_dir, port = tmp_path / "data", free_port()
    log = (tmp_path / "server.log").open("ab")

    def start() -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c",
             SERVER_SCRIPT, str(data_dir), str(port), relay.url],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait_for(lambda: _listening(port), timeout=60)
        return process

    engine = create_engine(f"sqlite:///{data_dir / 'pbm-emergo.sqlite3'}")
    first = start()
    second: subprocess.Popen[bytes] | None = None
    try:
        send(port, command_mail("signup alice right-password"))
        wait_for(lambda: len(relay.handler.messages()) == 1, timeout=60)
        # A mail that keeps its worker busy for a second or more: 30 logins with a wrong
        # password, the first 3 checked against the dear hash (the mail's cap), each line
        # stored as it is answered.
        body = "\n".join(["emergo notify alice wrong-password"] * 30)
        send(port, command_mail("multiple", body=body, message_id="<slow@example.org>"))

        def claim() -> str | None:
            with engine.connect() as connection:
                return connection.execute(text(
                    "SELECT claimed_by FROM inbound_messages WHERE status = 'processing'"
                )).scalar()

        def lines_stored() -> int:
            with engine.connect() as connection:
                return int(connection.execute(text(
                    "SELECT count(*) FROM inbound_lines"
                )).scalar() or 0)

        claimed_by = wait_for(claim, timeout=60)
        assert claimed_by.split(":")[1] == "1"  # a thread of PID 1 holds it
        wait_for(lines_stored, timeout=60)  # killed in the middle of the mail's lines
        os.kill(_pid_one_of(first), signal.SIGKILL)
        first.wait(30)
        second = start()
        # The restarted server (PID 1 again, the same host name) takes the mail up at
        # once, after the lines stored: its reply comes without waiting for the lease.
        wait_for(lambda: len(relay.handler.messages()) == 2, timeout=120)
        with engine.connect() as connection:
            row = connection.execute(text(
                "SELECT status, attempts FROM inbound_messages WHERE message_id = :m"
            ), {"m": "<slow@example.org>"}).one()
            # The lines stored before the crash were not run again, and the wrong passwords
            # they had checked still counted against the mail's cap: 3 checked in all.
            failures = connection.execute(text(
                "SELECT count FROM login_failures WHERE sender_key = 'alice@example.org'"
            )).scalar()
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                os.kill(_pid_one_of(process), signal.SIGTERM)
                process.wait(60)
        engine.dispose()
        log.close()
    assert tuple(row) == ("done", 2)
    report = relay.handler.messages()[1]
    assert report["In-Reply-To"] == "<slow@example.org>"
    assert report["Subject"] == "Emergo multiple: 0 done, 30 failed"
    assert failures == 3
