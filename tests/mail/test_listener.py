"""The real listener on 127.0.0.1, driven by smtplib."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import smtplib
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from email import policy
from pathlib import Path

import pytest
import uvloop
from aiosmtpd.smtp import SMTP
from aiosmtpd.smtp import Session as AiosmtpdSession
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import REGISTRY
from sqlalchemy import event, select, text
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import EVENT_LOOPS, Config
from pbm_emergo.db.models import InboundMessage
from pbm_emergo.db.session import get_sessionmaker
from pbm_emergo.mail.inbound import CountingSMTP, InboxHandler, Listener
from pbm_emergo.telemetry import metrics
from tests.support.mail import SERVER_ADDRESS, command_mail, make_config, send, wait_for


@pytest.fixture(params=EVENT_LOOPS)
def listener(
    request: pytest.FixtureRequest, config: Config, session_factory: sessionmaker[Session]
) -> Iterator[Listener]:
    """The listener, on each event loop it can run on (uvloop, the default, and asyncio)."""
    config = dataclasses.replace(config, event_loop=request.param)
    server = Listener(InboxHandler(session_factory, config), config)
    server.start()
    yield server
    server.stop()


def test_the_listener_runs_on_uvloop_unless_told_otherwise(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    assert Config().event_loop == "uvloop"
    for kind, loop_type in (("uvloop", uvloop.Loop), ("asyncio", asyncio.BaseEventLoop)):
        chosen = dataclasses.replace(config, event_loop=kind)
        server = Listener(InboxHandler(session_factory, chosen), chosen)
        server.start()
        try:
            assert isinstance(server.controller.loop, loop_type)
            assert not isinstance(server.controller.loop, uvloop.Loop) or kind == "uvloop"
            send(chosen.smtp_port, command_mail("help", message_id=f"<{kind}@example.org>"))
        finally:
            server.stop()
    assert [row.message_id for row in stored(session_factory)] == [
        "<uvloop@example.org>", "<asyncio@example.org>"
    ]
    with pytest.raises(ValueError, match="event_loop must be one of"):
        dataclasses.replace(config, event_loop="twisted")


def stored(session_factory: sessionmaker[Session]) -> list[InboundMessage]:
    with session_factory.begin() as session:
        return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))


def test_accepted_mail_is_stored_before_the_250(
    config: Config, listener: Listener, session_factory: sessionmaker[Session]
) -> None:
    msg = command_mail("emergo move 101 alice pw e4", message_id="<m1@example.org>")
    send(config.smtp_port, msg)
    # smtplib has returned, so the 250 came back: the row must already be there.
    [row] = stored(session_factory)
    assert row.raw == msg.as_bytes(policy=policy.SMTP)  # the exact bytes, as received
    assert row.envelope_sender == "alice@example.org"
    assert row.envelope_recipients == [SERVER_ADDRESS]
    assert row.message_id == "<m1@example.org>"
    assert row.status == "pending"
    assert row.board_number == 101
    # The subject column (shown by `admin mail`) never holds a password.
    assert row.subject is not None and "pw" not in row.subject and "****" in row.subject


def test_unknown_recipients_are_refused_at_rcpt(config: Config, listener: Listener) -> None:
    with smtplib.SMTP("127.0.0.1", config.smtp_port) as smtp:
        smtp.ehlo("client.test")
        smtp.mail("alice@example.org")
        assert smtp.rcpt("someone@emergo.test")[0] == 550
        assert smtp.rcpt("pbmserv@elsewhere.test")[0] == 550
        assert smtp.rcpt(SERVER_ADDRESS.upper())[0] == 250
        assert smtp.rcpt("postmaster@emergo.test")[0] == 250
        assert smtp.rcpt("postmaster")[0] == 250


def test_oversized_mail_gets_552(
    config: Config, listener: Listener, session_factory: sessionmaker[Session]
) -> None:
    big = command_mail("help", body=("y" * 70 + "\n") * 4000)
    assert len(big.as_bytes()) > config.max_message_size
    with pytest.raises(smtplib.SMTPException) as excinfo:
        send(config.smtp_port, big)
    # smtplib announces SIZE, so the refusal comes at MAIL FROM; either way it is 552.
    error = excinfo.value
    code = getattr(error, "smtp_code", None)
    if code is None:
        code = next(iter(error.recipients.values()))[0]  # type: ignore[attr-defined]
    assert code == 552
    assert stored(session_factory) == []
    # Without the SIZE announcement the server still refuses it after DATA.
    with smtplib.SMTP("127.0.0.1", config.smtp_port) as smtp:
        smtp.helo("client.test")  # HELO: no ESMTP, so no SIZE parameter
        smtp.mail("alice@example.org")
        smtp.rcpt(SERVER_ADDRESS)
        code, _ = smtp.data(big.as_bytes(policy=policy.SMTP))
    assert code == 552
    assert stored(session_factory) == []


def test_same_message_id_from_same_sender_is_stored_once(
    config: Config, listener: Listener, session_factory: sessionmaker[Session]
) -> None:
    msg = command_mail("help", message_id="<dup@example.org>")
    send(config.smtp_port, msg)
    send(config.smtp_port, msg)
    other = command_mail("help", sender="bob@example.org", message_id="<dup@example.org>")
    send(config.smtp_port, other)
    rows = stored(session_factory)
    assert [(r.envelope_sender, r.message_id) for r in rows] == [
        ("alice@example.org", "<dup@example.org>"),
        ("bob@example.org", "<dup@example.org>"),
    ]


def test_null_sender_is_accepted_and_stored(
    config: Config, listener: Listener, session_factory: sessionmaker[Session]
) -> None:
    bounce = command_mail("Undelivered Mail", sender="MAILER-DAEMON@example.org")
    send(config.smtp_port, bounce, envelope_sender="")
    [row] = stored(session_factory)
    assert row.envelope_sender == ""


def test_storage_failure_gives_451(tmp_path: Path) -> None:
    # A real database that was never migrated: storing fails with a real error.
    config = make_config(tmp_path)
    config.data_dir.mkdir(parents=True)
    server = Listener(InboxHandler(get_sessionmaker(config), config), config)
    server.start()
    try:
        with pytest.raises(smtplib.SMTPDataError) as excinfo:
            send(config.smtp_port, command_mail("help"))
        assert excinfo.value.smtp_code == 451
    finally:
        server.stop()


def test_stopped_listener_refuses_connections(config: Config, listener: Listener) -> None:
    listener.stop()
    with pytest.raises(OSError):
        send(config.smtp_port, command_mail("help"))


def test_a_stop_closes_the_connections_still_open(config: Config, listener: Listener) -> None:
    """A client still connected when the listener stops (idle after EHLO) is disconnected,
    and the listener's loop closes without a leaked connection (uvloop would refuse)."""
    client = smtplib.SMTP("127.0.0.1", config.smtp_port, timeout=10)
    client.ehlo("idle.example.org")
    loop = listener.controller.loop
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        listener.stop()
    assert loop.is_closed()
    with pytest.raises((smtplib.SMTPServerDisconnected, OSError)):
        client.noop()
        client.noop()
    client.close()


def test_stop_waits_for_the_mail_being_stored(
    config: Config, listener: Listener, session_factory: sessionmaker[Session]
) -> None:
    """stop() while a mail is being stored (the database held by another transaction):
    the mail is stored and its sender gets the 250 before the listener goes away."""
    results: list[object] = []

    def client() -> None:
        try:
            send(config.smtp_port, command_mail("help", message_id="<slow@example.org>"))
            results.append("250")
        except Exception as exc:  # noqa: BLE001 - recorded for the assertion below
            results.append(exc)

    with session_factory.begin() as session:
        # Hold the inbox table: SQLite's write lock is taken at BEGIN; PostgreSQL needs a lock.
        if session.get_bind().dialect.name == "postgresql":
            session.execute(text("LOCK TABLE inbound_messages IN ACCESS EXCLUSIVE MODE"))
        else:
            session.execute(text("SELECT 1"))  # the connection's BEGIN IMMEDIATE
        sender = threading.Thread(target=client)
        sender.start()
        wait_for(lambda: listener.handler.in_flight == 1, timeout=10)
        stopper = threading.Thread(target=listener.stop)
        stopper.start()
        time.sleep(0.5)
        assert stopper.is_alive()  # waiting for the mail in hand
    stopper.join(20)
    sender.join(20)
    assert results == ["250"]
    assert [row.message_id for row in stored(session_factory)] == ["<slow@example.org>"]


_REFUSE_INSERTS = {
    "sqlite": [
        "CREATE TRIGGER no_room BEFORE INSERT ON inbound_messages "
        "BEGIN SELECT RAISE(ABORT, 'no room'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION no_room() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION 'no room'; END $$",
        "CREATE TRIGGER no_room BEFORE INSERT ON inbound_messages "
        "FOR EACH ROW EXECUTE FUNCTION no_room()",
    ],
}


def test_storage_failure_log_shows_no_mail_content(
    config: Config,
    session_factory: sessionmaker[Session],
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The INSERT of the raw mail fails: SQLAlchemy's error text would carry the statement's
    # parameters (the raw bytes, passwords of a `multiple` body included) into the log.
    with session_factory.begin() as session:
        for statement in _REFUSE_INSERTS[session.get_bind().dialect.name]:
            session.execute(text(statement))
    server = Listener(InboxHandler(session_factory, config), config)
    server.start()
    try:
        # The Subject first: the start of the raw bytes is what an error text would show.
        raw = (
            b"Subject: signup bo pw-s3cret\r\nFrom: bo@example.org\r\n"
            b"To: pbmserv@emergo.test\r\n\r\nmultiple\r\n"
        )
        with (
            smtplib.SMTP("127.0.0.1", config.smtp_port, timeout=30) as smtp,
            pytest.raises(smtplib.SMTPDataError) as excinfo,
        ):
            smtp.sendmail("bo@example.org", [SERVER_ADDRESS], raw)
        assert excinfo.value.smtp_code == 451
    finally:
        server.stop()
    assert "no room" in caplog.text
    assert "pw-s3cret" not in caplog.text


@contextlib.contextmanager
def inbox_held(session_factory: sessionmaker[Session]) -> Iterator[None]:
    """Hold the inbox table in another transaction (SQLite's write lock, PostgreSQL's table
    lock) until the block ends."""
    with session_factory.begin() as session:
        if session.get_bind().dialect.name == "postgresql":
            session.execute(text("LOCK TABLE inbound_messages IN ACCESS EXCLUSIVE MODE"))
        else:
            session.execute(text("SELECT 1"))  # the connection's BEGIN IMMEDIATE
        yield


def test_mails_arriving_together_are_stored_in_one_transaction(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    handler = InboxHandler(session_factory, config)
    engine = session_factory.kw["bind"]
    commits: list[int] = []

    def count(connection: object) -> None:
        if threading.current_thread().name == "inbox-store":
            commits.append(1)

    event.listen(engine, "commit", count)
    try:
        mails = [
            functools.partial(
                handler.received,
                command_mail(f"emergo move {101 + n} alice pw e4",
                             message_id=f"<m{n}@example.org>").as_bytes(policy=policy.SMTP),
                "alice@example.org", [SERVER_ADDRESS],
            )
            for n in range(6)
        ]
        with inbox_held(session_factory):
            futures = [handler.committer.submit_nowait(mail) for mail in mails]
            time.sleep(0.3)
            assert not any(f.done() for f in futures)  # none answered before it is stored
        ids = [f.result(timeout=20).id for f in futures]
    finally:
        event.remove(engine, "commit", count)
    rows = stored(session_factory)
    assert [r.id for r in rows] == ids  # stored in the order they came
    assert [r.board_number for r in rows] == [101, 102, 103, 104, 105, 106]
    # The first mail's transaction waited for the lock; the other five came meanwhile and
    # went into one more transaction (the store thread may not have taken the first yet).
    assert 1 <= len(commits) <= 2


_REFUSE_BAD = {
    "sqlite": [
        "CREATE TRIGGER no_bad BEFORE INSERT ON inbound_messages "
        "WHEN NEW.subject LIKE '%bad%' BEGIN SELECT RAISE(ABORT, 'bad mail'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION no_bad() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN IF NEW.subject LIKE '%bad%' THEN RAISE EXCEPTION 'bad mail'; END IF; "
        "RETURN NEW; END $$",
        "CREATE TRIGGER no_bad BEFORE INSERT ON inbound_messages "
        "FOR EACH ROW EXECUTE FUNCTION no_bad()",
    ],
}


def test_a_mail_that_cannot_be_stored_fails_alone_in_its_group(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    with session_factory.begin() as session:
        for statement in _REFUSE_BAD[session.get_bind().dialect.name]:
            session.execute(text(statement))
    handler = InboxHandler(session_factory, config)
    mails = [
        functools.partial(
            handler.received,
            command_mail(subject, message_id=f"<{n}@example.org>").as_bytes(policy=policy.SMTP),
            "alice@example.org", [SERVER_ADDRESS],
        )
        for n, subject in enumerate(["help", "help bad", "help"])
    ]
    with inbox_held(session_factory):
        futures = [handler.committer.submit_nowait(mail) for mail in mails]
    good, bad, other = futures
    with pytest.raises(Exception, match="bad mail"):
        bad.result(timeout=20)
    ids = {good.result(timeout=20).id, other.result(timeout=20).id}
    rows = stored(session_factory)
    assert [r.message_id for r in rows] == ["<0@example.org>", "<2@example.org>"]
    assert {r.id for r in rows} == ids


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(
    st.text(max_size=40),
    st.sampled_from(["<alice@example.org>", "alice@example.org", "<>", "<a b@c>", "0@",
                     "<@route:x@y.z>", "<" + "x" * 70 + "@example.org>", "<bob@example.org> X=1"]),
), max_size=8))
def test_addresses_in_mail_and_rcpt_are_read_as_aiosmtpd_reads_them(args: list[str]) -> None:
    """The listener's session remembers the addresses it read; asked again, or asked with
    another local part limit, it answers as aiosmtpd's own session does."""
    loop = asyncio.new_event_loop()
    try:
        plain, ours = SMTP(object(), loop=loop), CountingSMTP(object(), loop=loop)
        plain_limited, limited = SMTP(object(), loop=loop), CountingSMTP(object(), loop=loop)
        plain_limited.local_part_limit = limited.local_part_limit = 64
        for arg in args + args:
            assert ours._getaddr(arg) == read(plain, arg)
            assert limited._getaddr(arg) == read(plain_limited, arg)
    finally:
        loop.close()


def read(session: SMTP, arg: str) -> tuple[str | None, str | None]:
    """aiosmtpd's reading of an address; where its parser fails (IndexError on "x@",
    AttributeError on "x@[" ...), a malformed address, as ours answers."""
    try:
        return session._getaddr(arg)
    except Exception:  # noqa: BLE001 - the stdlib parser's failures, whatever their type
        return None, None


def test_a_malformed_sender_address_gets_553(config: Config, listener: Listener) -> None:
    with smtplib.SMTP(config.smtp_host, config.smtp_port, timeout=10) as client:
        client.ehlo("client.example.org")
        assert client.docmd("MAIL FROM:alice@")[0] == 553
        assert client.docmd("MAIL FROM:<alice@[>")[0] == 553  # a domain literal left open
        assert client.docmd("MAIL FROM:<alice@example.org>")[0] == 250
        assert client.docmd("RCPT TO:bob@")[0] == 553
        assert client.docmd("RCPT TO:<bob@[>")[0] == 553
        assert client.docmd("RCPT TO:bob@[ ")[0] == 553


@pytest.mark.parametrize(
    "sender", ["<al\x00ice@example.org>", "alice@example.org\x00", "<alice@exa\x00mple.org>"]
)
def test_a_sender_address_with_a_nul_gets_553_and_nothing_is_stored(
    config: Config, listener: Listener, session_factory: sessionmaker[Session], sender: str
) -> None:
    """PostgreSQL cannot store a NUL in text: refused for good at MAIL FROM, not a 451 on
    storing that the sending MTA retries for days."""
    with smtplib.SMTP(config.smtp_host, config.smtp_port, timeout=10) as client:
        client.ehlo("client.example.org")
        code, answer = client.docmd(f"MAIL FROM:{sender}")
        assert (code, answer[:5]) == (553, b"5.1.7")
        assert client.docmd(f"RCPT TO:<{SERVER_ADDRESS}>")[0] == 503  # no sender yet
        # The session goes on: a valid sender is taken.
        assert client.docmd("MAIL FROM:<alice@example.org>")[0] == 250
    assert stored(session_factory) == []


def test_no_nul_of_an_envelope_reaches_the_database(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    """Also for a mail handed to the store without the listener's MAIL FROM check."""
    handler = InboxHandler(session_factory, config)
    handler.store(
        command_mail("help").as_bytes(), "al\x00ice@example.org", [SERVER_ADDRESS + "\x00"]
    )
    [row] = stored(session_factory)
    assert row.envelope_sender == "alice@example.org"
    assert row.envelope_recipients == [SERVER_ADDRESS]


def test_ehlo_answers_with_the_whole_reply_at_once(config: Config, listener: Listener) -> None:
    """EHLO's reply is one write (see CountingSMTP.push): on the wire it is the same
    multi-line reply as always, the extensions first, HELP last."""
    with socket.create_connection((config.smtp_host, config.smtp_port), timeout=10) as sock:
        reader = sock.makefile("rb")
        assert reader.readline().startswith(b"220 ")
        sock.sendall(b"EHLO client.example.org\r\n")
        lines = [reader.readline()]
        while lines[-1][3:4] == b"-":
            lines.append(reader.readline())
        sock.sendall(b"QUIT\r\n")
        assert reader.readline().startswith(b"221 ")
    assert lines == [
        f"250-{config.domain}\r\n".encode(),
        f"250-SIZE {config.max_message_size}\r\n".encode(),
        b"250-8BITMIME\r\n",
        b"250-SMTPUTF8\r\n",
        b"250 HELP\r\n",
    ]


class _Writes:
    """Stands in for asyncio's StreamWriter: records what is written."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    async def drain(self) -> None:
        return None


def test_a_multi_line_reply_is_written_once_and_counted_once() -> None:
    loop = asyncio.new_event_loop()
    try:
        session = CountingSMTP(object(), loop=loop)
        session.session = AiosmtpdSession(loop)
        writer = _Writes()
        session._writer = writer  # type: ignore[assignment]
        metrics.get()
        before = answers_550()

        async def replies() -> None:
            for line in ("250-emergo.test", b"250-SIZE 100", "250 HELP", "354 End data",
                         "550-5.1.1 No such user", "550 5.1.1 here"):
                await session.push(line)

        loop.run_until_complete(replies())
    finally:
        loop.close()
    assert writer.writes == [
        b"250-emergo.test\r\n250-SIZE 100\r\n250 HELP\r\n",
        b"354 End data\r\n",
        b"550-5.1.1 No such user\r\n550 5.1.1 here\r\n",
    ]
    assert answers_550() == before + 1


def answers_550() -> float:
    found = REGISTRY.get_sample_value("pbm_emergo_smtp_answers_total", {"code": "550"})
    return found or 0.0


def test_the_session_and_handler_list_what_aiosmtpd_looks_for(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    """dir() of the listener's session and handler lists only the SMTP verbs, handler
    hooks and AUTH mechanisms; aiosmtpd finds all the ones it finds with the full list."""

    class FullSMTP(CountingSMTP):
        def __dir__(self) -> list[str]:
            return sorted(object.__dir__(self))

    class FullHandler(InboxHandler):
        def __dir__(self) -> list[str]:
            return sorted(object.__dir__(self))

    loop = asyncio.new_event_loop()
    try:
        ours = CountingSMTP(InboxHandler(session_factory, config), loop=loop)
        full = FullSMTP(FullHandler(session_factory, config), loop=loop)
    finally:
        loop.close()
    assert len(dir(full)) > 3 * len(dir(ours))  # the shortcut is taken
    for table in ("_smtp_methods", "_handle_hooks", "_auth_methods"):
        found, expected = getattr(ours, table), getattr(full, table)
        assert found.keys() == expected.keys(), table
    assert {"EHLO", "MAIL", "RCPT", "DATA", "QUIT"} <= ours._smtp_methods.keys()
    assert ours._handle_hooks.keys() == {"MAIL", "RCPT", "DATA"}
    assert {"LOGIN", "PLAIN"} <= ours._auth_methods.keys()
    assert all(
        ours._smtp_methods[verb].__func__ is full._smtp_methods[verb].__func__
        for verb in ours._smtp_methods
    )
