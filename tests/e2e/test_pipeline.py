"""The whole pipeline in one process: the real listener, the real command layer, a real
aiosmtpd relay. Runs on SQLite and PostgreSQL (the shared database fixtures)."""

from __future__ import annotations

import dataclasses
import smtplib
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.app.results import Write
from pbm_emergo.app.runner import Work
from pbm_emergo.config import Config
from pbm_emergo.db.models import InboundMessage, OutboundMessage
from pbm_emergo.mail.commands import CommandText, dispatch
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support.mail import SERVER_ADDRESS, Relay, command_mail, free_port, send, wait_for
from tests.support.servers import stop_all
from tests.support.waits import scaled

FAST = Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1))


@pytest.fixture
def relay() -> Iterator[Relay]:
    server = Relay()
    server.start()
    yield server
    server.stop()


def make_server(
    db_config: Config, db_sessions: sessionmaker[Session], outbound: str, **kwargs: object
) -> MailServer:
    config = dataclasses.replace(
        db_config, address=SERVER_ADDRESS, smtp_port=free_port(), outbound=outbound
    )
    return MailServer(config, db_sessions, backoff=FAST, poll_seconds=0.2, **kwargs)  # type: ignore[arg-type]


def statuses(factory: sessionmaker[Session], model: type) -> list[str]:  # type: ignore[type-arg]
    with factory.begin() as session:
        return list(session.scalars(select(model.status).order_by(model.id)))


def test_help_and_emergo_help_end_to_end(
    db_config: Config, db_sessions: sessionmaker[Session], relay: Relay
) -> None:
    server = make_server(db_config, db_sessions, relay.url)
    server.start()
    try:
        send(server.config.smtp_port, command_mail("help", message_id="<h1@example.org>"))
        send(server.config.smtp_port,
             command_mail("Re: emergo help", sender="Bob <Bob@Example.org>",
                          message_id="<h2@example.org>"))
        wait_for(lambda: len(relay.handler.messages()) == 2)
    finally:
        server.stop()
    replies = {str(m["In-Reply-To"]): m for m in relay.handler.messages()}
    general, emergo = replies["<h1@example.org>"], replies["<h2@example.org>"]
    assert general["To"] == "alice@example.org" and emergo["To"] == "bob@example.org"
    assert general["Subject"] == "Emergo help"
    assert "emergo help" in general.get_content()
    assert "How to play Emergo" in emergo.get_content()
    for reply in (general, emergo):
        assert reply["From"] == SERVER_ADDRESS
        assert reply["Auto-Submitted"] == "auto-replied"
        assert reply["Message-ID"].endswith("@emergo.test>")
    assert statuses(db_sessions, InboundMessage) == ["done", "done"]
    assert statuses(db_sessions, OutboundMessage) == ["sent", "sent"]


def test_bounces_and_auto_replies_are_stored_never_answered(
    db_config: Config, db_sessions: sessionmaker[Session], relay: Relay
) -> None:
    server = make_server(db_config, db_sessions, relay.url)
    server.start()
    try:
        port = server.config.smtp_port
        send(port, command_mail("Undeliverable: help", sender="MAILER-DAEMON@example.org"), "")
        send(port, command_mail("Out of office", headers={"Auto-Submitted": "auto-replied"}))
        send(port, command_mail("help", message_id="<real@example.org>"))
        wait_for(lambda: len(relay.handler.messages()) == 1)
        wait_for(lambda: statuses(db_sessions, InboundMessage) == ["ignored", "ignored", "done"])
    finally:
        server.stop()
    [reply] = relay.handler.messages()
    assert reply["In-Reply-To"] == "<real@example.org>"


def test_relay_down_for_a_while_then_up_every_reply_arrives(
    db_config: Config, db_sessions: sessionmaker[Session]
) -> None:
    relay = Relay()  # not started: connections to its port are refused
    server = make_server(db_config, db_sessions, relay.url)
    server.start()
    try:
        for n in range(10):
            send(server.config.smtp_port,
                 command_mail("help", sender=f"p{n}@example.org", message_id=f"<d{n}@x.org>"))

        def all_retried() -> bool:
            with db_sessions.begin() as session:
                attempts = list(session.scalars(select(OutboundMessage.attempts)))
            return len(attempts) == 10 and min(attempts) >= 2

        wait_for(all_retried)
        assert relay.handler.messages() == []
        relay.start()
        wait_for(lambda: len(relay.handler.messages()) == 10)
        wait_for(lambda: statuses(db_sessions, OutboundMessage) == ["sent"] * 10)
    finally:
        server.stop()
        relay.stop()
    assert sorted(str(m["In-Reply-To"]) for m in relay.handler.messages()) == sorted(
        f"<d{n}@x.org>" for n in range(10)
    )


def test_stop_finishes_the_message_in_hand(
    db_config: Config, db_sessions: sessionmaker[Session], relay: Relay
) -> None:
    started = threading.Event()

    def slow(
        session: Session, mail: CommandMail, config: Config, now: datetime,
        *, text: CommandText, board_number: int | None = None,
    ) -> tuple[list[Reply], list[Write]]:
        started.set()
        threading.Event().wait(1.0)  # the message is in hand when stop() comes
        return dispatch(session, mail, config, now, text=text, board_number=board_number)

    server = make_server(db_config, db_sessions, relay.url, processor=slow)
    server.start()
    send(server.config.smtp_port, command_mail("help"))
    assert started.wait(scaled(10))
    server.stop()
    assert statuses(db_sessions, InboundMessage) == ["done"]
    assert len(statuses(db_sessions, OutboundMessage)) == 1
    with pytest.raises(OSError):
        send(server.config.smtp_port, command_mail("help"))


def test_stop_finishes_the_mail_claimed_ahead_too(
    db_config: Config, db_sessions: sessionmaker[Session], relay: Relay
) -> None:
    """A mail's write transaction claims the next stored mail: a stop that comes while the
    first is in hand leaves neither in the worker's hands."""
    started = threading.Event()

    def held(
        session: Session, mail: CommandMail, config: Config, now: datetime,
        *, text: CommandText, board_number: int | None = None,
    ) -> tuple[list[Reply], list[Write]]:
        if not started.is_set():
            started.set()
            server.stopping.wait(scaled(10))  # in hand until the stop comes
        return dispatch(session, mail, config, now, text=text, board_number=board_number)

    # One inbox thread: the second mail is its, not another thread's.
    server = make_server(dataclasses.replace(db_config, workers=1), db_sessions, relay.url,
                         processor=held)
    server.start()
    send(server.config.smtp_port, command_mail("help", message_id="<s1@x.org>"))
    assert started.wait(scaled(10))
    send(server.config.smtp_port, command_mail("help", message_id="<s2@x.org>"))
    server.stop()
    assert statuses(db_sessions, InboundMessage) == ["done", "done"]
    assert len(statuses(db_sessions, OutboundMessage)) == 2


def test_smtp_session_details(
    db_config: Config, db_sessions: sessionmaker[Session], relay: Relay
) -> None:
    server = make_server(db_config, db_sessions, relay.url)
    server.start()
    try:
        with smtplib.SMTP("127.0.0.1", server.config.smtp_port) as smtp:
            code, banner = smtp.ehlo("client.test")
            assert code == 250 and banner.split(b"\n")[0] == b"emergo.test"
            assert smtp.has_extn("size")
            assert int(smtp.esmtp_features["size"]) == server.config.max_message_size
    finally:
        server.stop()


def test_scheduler_releases_the_claim_of_a_crashed_process(
    db_config: Config, db_sessions: sessionmaker[Session], relay: Relay
) -> None:
    import subprocess
    import sys

    from pbm_emergo.db import inbox
    from pbm_emergo.db.claims import worker_name
    from pbm_emergo.db.types import utcnow

    server = make_server(db_config, db_sessions, relay.url, scheduler_seconds=0.2)
    server.start()
    try:
        # After the start: a mail in the hands of a worker process that has since died.
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True).stdout.strip()
        msg = command_mail("help", message_id="<orphan@example.org>")
        with db_sessions.begin() as session:
            orphan, _ = inbox.enqueue_inbound(
                session, msg.as_bytes(), "alice@example.org", [SERVER_ADDRESS],
                "<orphan@example.org>", utcnow(), status="processing",
            )
            orphan.claimed_by = f"{worker_name().split(':')[0]}:{gone}:inbox-1"
            orphan.claimed_at = utcnow()
            orphan.attempts = 1
        wait_for(lambda: len(relay.handler.messages()) == 1)
    finally:
        server.stop()
    assert relay.handler.messages()[0]["In-Reply-To"] == "<orphan@example.org>"
    assert statuses(db_sessions, InboundMessage) == ["done"]


@pytest.mark.slow
def test_worker_command_processes_what_a_listener_stored(tmp_path: Path) -> None:
    """`pbm-emergo worker` (no listener) as its own process, stopped with SIGTERM."""
    import os
    import signal
    import subprocess
    import sys

    from pbm_emergo.db.session import dispose_engines, get_sessionmaker, upgrade_to_head
    from pbm_emergo.mail.inbound import InboxHandler
    from tests.support.mail import make_config

    config = make_config(tmp_path)
    upgrade_to_head(config)
    handler = InboxHandler(get_sessionmaker(config), config)
    for n in range(3):
        msg = command_mail("help", sender=f"p{n}@example.org", message_id=f"<w{n}@x.org>")
        handler.store(msg.as_bytes(), f"p{n}@example.org", [SERVER_ADDRESS])
    dispose_engines()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "pbm_emergo", "worker", "--data-dir", str(config.data_dir),
         "--address", SERVER_ADDRESS],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    maildir = config.data_dir / "outbox-maildir" / "new"
    try:
        wait_for(lambda: maildir.is_dir() and len(list(maildir.iterdir())) == 3, timeout=30)
    finally:
        process.send_signal(signal.SIGTERM)
        [output] = stop_all([process])
    assert process.returncode == 0, output.decode()
    assert not listening_on(config.smtp_port)


def listening_on(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_worker_refuses_an_unmigrated_database(tmp_path: Path) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "pbm_emergo", "worker", "--data-dir", str(tmp_path / "d")],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1
    assert "run `pbm-emergo db upgrade` first, or add --migrate" in result.stderr


def test_scheduler_mails_what_the_scheduled_task_returns(
    db_config: Config, db_sessions: sessionmaker[Session], relay: Relay
) -> None:
    calls: list[datetime] = []

    def reminders(session: Session, config: Config, now: datetime) -> list[Work]:
        calls.append(now)
        if len(calls) > 1:
            return []
        return [Work(replies=(Reply("bob@example.org", "Emergo Board 101 bob", "Your move.\n",
                                    board=101),))]

    server = make_server(db_config, db_sessions, relay.url, scheduler_seconds=0.2,
                         scheduled=reminders)
    server.start()
    try:
        [reminder] = wait_for(relay.handler.messages)
        wait_for(lambda: len(calls) >= 2)
    finally:
        server.stop()
    assert reminder["Subject"] == "Emergo Board 101 bob"
    assert reminder["In-Reply-To"] is None
    assert reminder["References"] == "<board-101.pbm-emergo@emergo.test>"
    assert reminder["Auto-Submitted"] == "auto-replied"


@pytest.mark.slow
def test_two_worker_processes_share_the_queue_without_doing_anything_twice(
    db_config: Config, db_sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    """Two `pbm-emergo worker` processes on one database (FOR UPDATE SKIP LOCKED on
    PostgreSQL, the write lock on SQLite): every mail answered exactly once."""
    import os
    import re
    import signal
    import subprocess
    import sys

    from pbm_emergo.mail.inbound import InboxHandler

    # Enough work (about 3 s) that both processes poll (every second) while some is left,
    # however loaded the machine: with 150 one process sometimes did it all.
    MANY = 400  # noqa: N806
    config = dataclasses.replace(db_config, address=SERVER_ADDRESS)
    maildir = tmp_path / "replies"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
    logs = [tmp_path / f"worker{n}.log" for n in range(2)]
    processes = []
    for log in logs:
        with log.open("wb") as out:
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "pbm_emergo", "worker", "--data-dir", str(tmp_path / "d"),
                 "--database-url", str(config.database_url), "--address", SERVER_ADDRESS,
                 "--outbound", f"maildir:{maildir}", "--workers", "2"],
                stdout=out, stderr=subprocess.STDOUT, env=env,
            ))  # fmt: skip
    try:
        for log in logs:
            wait_for(lambda log=log: "replies go to" in log.read_text(), timeout=30)
        handler = InboxHandler(db_sessions, config)
        for n in range(MANY):
            msg = command_mail("help", sender=f"p{n}@example.org", message_id=f"<mp{n}@x.org>")
            handler.store(msg.as_bytes(), f"p{n}@example.org", [SERVER_ADDRESS])
        new = maildir / "new"
        wait_for(lambda: new.is_dir() and len(list(new.iterdir())) >= MANY, timeout=180)
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        stop_all(processes)
    assert [p.returncode for p in processes] == [0, 0]
    assert len(list((maildir / "new").iterdir())) == MANY
    with db_sessions.begin() as session:
        attempts = list(session.scalars(select(InboundMessage.attempts)))
        replies = list(session.scalars(select(OutboundMessage.inbound_id)))
    assert attempts == [1] * MANY
    assert sorted(replies) == sorted(set(replies)) and len(replies) == MANY
    done = [len(re.findall(r"mail id=\d+ .* result=done", log.read_text())) for log in logs]
    print("done per process:", done)
    assert sum(done) == MANY and min(done) > 0, done


def test_the_default_scheduler_mails_real_reminders(
    db_config: Config, db_sessions: sessionmaker[Session], relay: Relay
) -> None:
    """No task passed in: the server runs pbm_emergo.app.timers.scheduled, which reminds the
    player to move once the board's nag time has passed (a clock 8 days ahead here)."""
    from pbm_emergo.db import games, players

    start = datetime.now(UTC)
    with db_sessions.begin() as session:
        alice = players.create_player(session, "alice", "alicepw", ["alice@example.org"], start)
        bob = players.create_player(session, "bob", "bobpw", ["bob@example.org"], start)
        games.create_board(session, alice, bob, start)

    server = make_server(db_config, db_sessions, relay.url, scheduler_seconds=0.2,
                         clock=lambda: datetime.now(UTC) + timedelta(days=8))
    server.start()
    try:
        [reminder] = wait_for(relay.handler.messages)
    finally:
        server.stop()
    assert reminder["To"] == "alice@example.org"
    assert reminder["Subject"] == "Nag: Emergo Board 101 alice"
    assert reminder["References"] == "<board-101.pbm-emergo@emergo.test>"
    assert reminder.get_content_type() == "multipart/alternative"
    text = reminder.get_body(("plain",)).get_content()
    assert "it has been your turn on Emergo Board 101 for 8 days" in text
    assert "it has been your turn on Emergo Board 101 for 8 days" in (
        reminder.get_body(("html",)).get_content()
    )
