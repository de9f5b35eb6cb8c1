"""The outbox sender's one SMTP connection, against a real aiosmtpd relay that counts the
connections: reused for consecutive mails, reopened when the relay closed it (nothing lost,
no attempt counted), closed with QUIT when idle, after a number of mails and at shutdown;
a refused mail does not spoil the next one; a batch's outcomes are one transaction."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from sqlalchemy import event
from sqlalchemy.orm import Session as DbSession
from sqlalchemy.orm import sessionmaker

from pbm_emergo.db.session import READ_ONLY
from pbm_emergo.mail.outbound import (
    Backoff,
    DeliveryError,
    MaildirTransport,
    OutboxSender,
    SMTPTransport,
)
from tests.support.clock import START, Clock
from tests.support.mail import MayOfferPipelining, RecordingHandler, Relay, wait_for

from .support import outbound, queue_reply

RAW = b"From: s@e.test\r\nTo: x@example.org\r\nSubject: Emergo\r\n\r\nbody\r\n"


@dataclass
class CountingHandler(RecordingHandler, MayOfferPipelining):
    """RecordingHandler that also counts EHLO (one per client connection: aiosmtpd's own
    start-up probe sends none), QUIT and RSET, refuses some recipients, and can answer the
    next MAIL commands with 421 and close the connection, as a relay ending an idle one;
    offers PIPELINING when asked."""

    ehlos: int = 0
    quits: int = 0
    rsets: int = 0
    refuse: set[str] = field(default_factory=set)
    close_with_421: int = 0
    on_data: Callable[[], None] | None = None

    async def handle_EHLO(  # noqa: N802 - aiosmtpd's hook names
        self, server: SMTP, session: Session, envelope: Envelope, hostname: str,
        responses: list[str],
    ) -> list[str]:
        with self.lock:
            self.ehlos += 1
        return await super().handle_EHLO(server, session, envelope, hostname, responses)

    async def handle_MAIL(  # noqa: N802
        self, server: SMTP, session: Session, envelope: Envelope, address: str,
        mail_options: list[str],
    ) -> str:
        with self.lock:
            closing = self.close_with_421 > 0
            if closing:
                self.close_with_421 -= 1
        if closing:
            transport = server.transport
            assert transport is not None
            asyncio.get_running_loop().call_soon(transport.close)  # after the reply
            return "421 4.4.2 relay.test closing the connection"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(  # noqa: N802
        self, server: SMTP, session: Session, envelope: Envelope, address: str,
        rcpt_options: list[str],
    ) -> str:
        if address in self.refuse:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(  # noqa: N802
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        answer = await super().handle_DATA(server, session, envelope)
        if self.on_data is not None:
            self.on_data()
        return answer

    async def handle_RSET(  # noqa: N802
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        with self.lock:
            self.rsets += 1
        return "250 OK"

    async def handle_QUIT(  # noqa: N802
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        with self.lock:
            self.quits += 1
        return "221 Bye"


class _CountingSMTP(SMTP):
    def __init__(self, relay: CountingRelay, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.relay = relay

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        with self.relay.lock:
            self.relay.sessions.add(self)

    def connection_lost(self, error: Exception | None) -> None:
        with self.relay.lock:
            self.relay.sessions.discard(self)
        super().connection_lost(error)


class _Controller(Controller):
    def __init__(self, relay: CountingRelay, **kwargs: Any) -> None:
        self.relay = relay
        super().__init__(relay.handler, **kwargs)

    def factory(self) -> SMTP:
        return _CountingSMTP(self.relay, self.handler, **self.SMTP_kwargs)


class CountingRelay(Relay):
    """The test relay, counting connections; ``idle_timeout``: it closes a connection idle
    that long (aiosmtpd's ``timeout``), as real relays do; ``pipelining``: it offers
    PIPELINING, as Postfix does."""

    def __init__(
        self, port: int | None = None, *, idle_timeout: float | None = None,
        pipelining: bool = False,
    ) -> None:
        super().__init__(port)
        self.handler: CountingHandler = CountingHandler(pipelining=pipelining)
        self.idle_timeout = idle_timeout
        self.lock = threading.Lock()
        self.sessions: set[_CountingSMTP] = set()

    def start(self) -> None:
        extra = {} if self.idle_timeout is None else {"timeout": self.idle_timeout}
        self.controller = _Controller(
            self, hostname="127.0.0.1", port=self.port, server_hostname="relay.test",
            decode_data=False, **extra,
        )
        self.controller.start()

    @property
    def connections(self) -> int:
        """Client connections so far (each one says EHLO once)."""
        return self.handler.ehlos

    def open_connections(self) -> int:
        with self.lock:
            return sum(1 for s in self.sessions if s.session and s.session.host_name)

    def close_connections(self) -> None:
        """Close every client connection from the relay's side, and wait until it is done."""
        assert self.controller is not None
        with self.lock:
            transports = [s.transport for s in self.sessions if s.transport is not None]
        for transport in transports:
            self.controller.loop.call_soon_threadsafe(transport.close)
        wait_for(lambda: self.open_connections() == 0, timeout=5)


@pytest.fixture(params=[False, True], ids=["one-by-one", "pipelined"])
def counting_relay(request: pytest.FixtureRequest) -> Iterator[CountingRelay]:
    """The relay, once sent to command by command and once with PIPELINING offered."""
    relay = CountingRelay(pipelining=request.param)
    relay.start()
    yield relay
    relay.stop()


@pytest.fixture
def transport(counting_relay: CountingRelay) -> Iterator[SMTPTransport]:
    smtp = SMTPTransport("127.0.0.1", counting_relay.port, "s.test", timeout=10)
    yield smtp
    smtp.close()


def sender_with(factory: sessionmaker[DbSession], transport: SMTPTransport,
                clock: Clock | None = None, **kwargs: Any) -> OutboxSender:
    return OutboxSender(
        factory, transport, "s@e.test", clock=clock or Clock(),
        backoff=Backoff(base=timedelta(seconds=30), cap=timedelta(minutes=10)), **kwargs,
    )


def send_all(sender: OutboxSender) -> int:
    total = 0
    while attempted := sender.run_once():
        total += attempted
    return total


def received(relay: Relay) -> list[str]:
    return [rcpt for _, rcpts, _ in relay.handler.received for rcpt in rcpts]


# --- one connection for many mails ---------------------------------------------------------


def test_consecutive_mails_go_over_one_connection(
    session_factory: sessionmaker[DbSession], counting_relay: CountingRelay,
    transport: SMTPTransport,
) -> None:
    addresses = [f"p{n}@example.org" for n in range(25)]  # three batches of at most ten
    for address in addresses:
        queue_reply(session_factory, address)
    sender = sender_with(session_factory, transport)
    assert send_all(sender) == 25
    assert received(counting_relay) == addresses
    assert counting_relay.connections == 1 and counting_relay.handler.rsets == 0
    rows = outbound(session_factory)
    assert {(r.status, r.attempts, r.last_error) for r in rows} == {("sent", 1, None)}
    assert counting_relay.open_connections() == 1
    sender.close()
    assert counting_relay.handler.quits == 1
    wait_for(lambda: counting_relay.open_connections() == 0, timeout=5)


def test_a_connection_carries_a_bounded_number_of_mails(counting_relay: CountingRelay) -> None:
    smtp = SMTPTransport("127.0.0.1", counting_relay.port, "s.test", max_mails=3)
    try:
        for n in range(7):
            smtp.deliver("s@e.test", f"p{n}@example.org", RAW)
        # QUIT after the 3rd and the 6th; the 7th is on a third connection, still open.
        assert (counting_relay.connections, counting_relay.handler.quits) == (3, 2)
        assert len(received(counting_relay)) == 7
    finally:
        smtp.close()
    assert counting_relay.handler.quits == 3


def test_lines_that_start_with_a_dot_arrive_as_written(
    counting_relay: CountingRelay, transport: SMTPTransport
) -> None:
    body = ".a line that starts with a dot\r\n..and two\r\nlast"  # no line break at the end
    transport.deliver("s@e.test", "alice@example.org", RAW.replace(b"body\r\n", body.encode()))
    [message] = counting_relay.handler.messages()
    assert message.get_content() == body + "\r\n"


# --- the relay closing the connection --------------------------------------------------------


@pytest.mark.parametrize("pipelining", [False, True], ids=["one-by-one", "pipelined"])
def test_relay_closing_an_idle_connection_loses_nothing(
    session_factory: sessionmaker[DbSession], pipelining: bool
) -> None:
    relay = CountingRelay(idle_timeout=0.3, pipelining=pipelining)
    relay.start()
    smtp = SMTPTransport("127.0.0.1", relay.port, "s.test", idle_seconds=60, timeout=10)
    try:
        sender = sender_with(session_factory, smtp)
        queue_reply(session_factory, "alice@example.org")
        assert sender.run_once() == 1
        # The relay's own idle timeout ends the connection (no 421: just closed).
        wait_for(lambda: relay.open_connections() == 0, timeout=5)
        queue_reply(session_factory, "bob@example.org")
        assert sender.run_once() == 1
        assert received(relay) == ["alice@example.org", "bob@example.org"]
        assert relay.connections == 2
        # The mail met the closed connection first: sent at once, not a failed attempt.
        rows = outbound(session_factory)
        assert [(r.status, r.attempts, r.last_error) for r in rows] == [("sent", 1, None)] * 2
    finally:
        smtp.close()
        relay.stop()


@pytest.mark.parametrize("how", ["closed", "421", "restart"])
def test_relay_ending_the_connection_between_mails_loses_nothing(
    session_factory: sessionmaker[DbSession], counting_relay: CountingRelay,
    transport: SMTPTransport, how: str,
) -> None:
    sender = sender_with(session_factory, transport)
    queue_reply(session_factory, "alice@example.org")
    assert sender.run_once() == 1
    handler = counting_relay.handler
    if how == "closed":
        counting_relay.close_connections()
    elif how == "421":
        handler.close_with_421 = 1  # the next MAIL: "421 closing", and the relay hangs up
    else:
        counting_relay.stop()
        counting_relay.start()  # same port, same handler (its counts go on)
    queue_reply(session_factory, "bob@example.org")
    queue_reply(session_factory, "carol@example.org")
    assert sender.run_once() == 2
    assert received(counting_relay) == ["alice@example.org", "bob@example.org",
                                        "carol@example.org"]
    assert counting_relay.connections == 2  # bob reconnected, carol followed on it
    rows = outbound(session_factory)
    assert [(r.status, r.attempts, r.last_error) for r in rows] == [("sent", 1, None)] * 3


def test_a_failure_on_a_fresh_connection_is_reported(
    session_factory: sessionmaker[DbSession], counting_relay: CountingRelay,
    transport: SMTPTransport,
) -> None:
    clock = Clock()
    sender = sender_with(session_factory, transport, clock)
    queue_reply(session_factory, "alice@example.org")
    assert sender.run_once() == 1
    counting_relay.handler.close_with_421 = 2  # on the reused connection, then the new one
    queue_reply(session_factory, "bob@example.org")
    assert sender.run_once() == 1
    _, bob = outbound(session_factory)
    # One reconnection only, then a temporary failure like any other.
    assert counting_relay.connections == 2
    assert (bob.status, bob.attempts) == ("pending", 1)
    assert (bob.last_error or "").startswith("421")
    assert bob.next_attempt_at == START + timedelta(seconds=30)
    # The next attempt opens a new connection and succeeds.
    clock.now = bob.next_attempt_at
    assert sender.run_once() == 1
    assert outbound(session_factory)[1].status == "sent"
    assert received(counting_relay) == ["alice@example.org", "bob@example.org"]
    assert counting_relay.connections == 3


def test_relay_gone_for_good_is_a_temporary_failure(counting_relay: CountingRelay) -> None:
    smtp = SMTPTransport("127.0.0.1", counting_relay.port, "s.test", timeout=10)
    smtp.deliver("s@e.test", "alice@example.org", RAW)
    counting_relay.stop()
    with pytest.raises(DeliveryError) as failure:
        smtp.deliver("s@e.test", "bob@example.org", RAW)
    assert not failure.value.permanent
    smtp.close()  # nothing open any more: no error


# --- a refused mail, then the next one on the same connection ------------------------------


def test_a_refused_recipient_does_not_spoil_the_next_mail(
    session_factory: sessionmaker[DbSession], counting_relay: CountingRelay,
    transport: SMTPTransport,
) -> None:
    counting_relay.handler.refuse = {"nobody@example.org"}
    for address in ("alice@example.org", "nobody@example.org", "bob@example.org"):
        queue_reply(session_factory, address)
    assert sender_with(session_factory, transport).run_once() == 3
    alice, nobody, bob = outbound(session_factory)
    assert (nobody.status, (nobody.last_error or "")[:3]) == ("failed", "550")
    assert (alice.status, bob.status) == ("sent", "sent")
    assert received(counting_relay) == ["alice@example.org", "bob@example.org"]
    # The failed transaction was reset (RSET), and the connection kept.
    assert (counting_relay.connections, counting_relay.handler.rsets) == (1, 1)


def test_a_refused_message_does_not_spoil_the_next_mail(
    counting_relay: CountingRelay, transport: SMTPTransport
) -> None:
    counting_relay.handler.response = "554 5.6.0 message refused"
    with pytest.raises(DeliveryError) as failure:
        transport.deliver("s@e.test", "alice@example.org", RAW)
    assert failure.value.permanent
    counting_relay.handler.response = "250 OK"
    transport.deliver("s@e.test", "bob@example.org", RAW)
    assert received(counting_relay) == ["bob@example.org"]
    assert counting_relay.connections == 1


def test_an_address_smtp_cannot_carry_leaves_the_connection_clean(
    counting_relay: CountingRelay, transport: SMTPTransport
) -> None:
    # smtplib fails to encode the RCPT after the relay took MAIL: without RSET the next
    # MAIL would be refused ("nested MAIL command").
    with pytest.raises(DeliveryError) as failure:
        transport.deliver("s@e.test", "\udce9l\u00e8ve@example.org", RAW)  # not UTF-8
    assert failure.value.permanent
    transport.deliver("s@e.test", "alice@example.org", RAW)
    assert received(counting_relay) == ["alice@example.org"]
    assert counting_relay.connections == 1


# --- closing ----------------------------------------------------------------------------


def test_an_idle_connection_is_closed_with_quit(
    counting_relay: CountingRelay, transport: SMTPTransport
) -> None:
    assert transport.close_if_idle(time.monotonic()) is None  # nothing open
    transport.deliver("s@e.test", "alice@example.org", RAW)
    left = transport.close_if_idle(time.monotonic())
    assert left is not None and 0 < left <= transport.idle_seconds
    assert counting_relay.open_connections() == 1 and counting_relay.handler.quits == 0
    assert transport.close_if_idle(time.monotonic() + transport.idle_seconds) is None
    assert counting_relay.handler.quits == 1
    wait_for(lambda: counting_relay.open_connections() == 0, timeout=5)
    # The next mail opens a new connection.
    transport.deliver("s@e.test", "bob@example.org", RAW)
    assert counting_relay.connections == 2


def test_the_sender_closes_the_connection_when_nothing_is_due(
    session_factory: sessionmaker[DbSession], counting_relay: CountingRelay
) -> None:
    smtp = SMTPTransport("127.0.0.1", counting_relay.port, "s.test", idle_seconds=3)
    sender = sender_with(session_factory, smtp)
    queue_reply(session_factory, "alice@example.org")
    assert sender.run_once() == 1
    assert sender.run_once() == 0  # nothing due, but not idle for 3 s yet
    assert counting_relay.handler.quits == 0
    # The sender's loop sleeps no longer than until the connection is to be closed.
    assert 0 < sender.seconds_until_due(60.0) <= 3.01
    smtp.idle_seconds = 0
    assert sender.run_once() == 0
    assert counting_relay.handler.quits == 1
    assert sender.seconds_until_due(60.0) == 60.0
    wait_for(lambda: counting_relay.open_connections() == 0, timeout=5)


def test_shutdown_puts_back_the_rest_of_the_batch_and_quits(
    session_factory: sessionmaker[DbSession], counting_relay: CountingRelay,
    transport: SMTPTransport,
) -> None:
    stop = threading.Event()
    counting_relay.handler.on_data = stop.set  # the relay takes one mail, then we stop
    for n in range(3):
        queue_reply(session_factory, f"p{n}@example.org")
    assert sender_with(session_factory, transport).run_once(stop) == 3
    first, *rest = outbound(session_factory)
    assert first.status == "sent"
    assert [(r.status, r.next_attempt_at, r.last_error) for r in rest] == [
        ("pending", START, "not tried: shutting down")
    ] * 2
    assert counting_relay.handler.quits == 1
    assert received(counting_relay) == ["p0@example.org"]


def test_close_from_another_thread_waits_for_the_mail_in_hand(
    counting_relay: CountingRelay, transport: SMTPTransport
) -> None:
    done = threading.Event()

    def close_again_and_again() -> None:
        while not done.is_set():
            transport.close()
            time.sleep(0.001)

    closer = threading.Thread(target=close_again_and_again)
    closer.start()
    try:
        for n in range(30):
            transport.deliver("s@e.test", f"p{n}@example.org", RAW)
    finally:
        done.set()
        closer.join(10)
    assert received(counting_relay) == [f"p{n}@example.org" for n in range(30)]


def test_the_maildir_transport_has_nothing_to_close(tmp_path: Any) -> None:
    maildir = MaildirTransport(tmp_path / "out")
    maildir.deliver("s@e.test", "alice@example.org", RAW)
    assert maildir.close_if_idle(time.monotonic()) is None
    maildir.close()


def test_a_transport_dropped_with_its_connection_open_frees_the_socket(
    counting_relay: CountingRelay,
) -> None:
    smtp = SMTPTransport("127.0.0.1", counting_relay.port, "s.test")
    smtp.deliver("s@e.test", "alice@example.org", RAW)
    del smtp  # no ResourceWarning (an error under this suite's filterwarnings)
    wait_for(lambda: counting_relay.open_connections() == 0, timeout=5)


# --- recording a batch --------------------------------------------------------------------


def commits_during(factory: sessionmaker[DbSession], action: Callable[[], object]) -> int:
    """The write transactions ``action`` made: those the engine began, the reading ones left
    out (a claim's one statement counts, which on PostgreSQL goes alone, with no COMMIT)."""
    count = 0

    def counted(connection: Any) -> None:
        nonlocal count
        if not connection.get_execution_options().get(READ_ONLY):
            count += 1

    engine = factory.kw["bind"]
    event.listen(engine, "begin", counted)
    try:
        action()
    finally:
        event.remove(engine, "begin", counted)
    return count


def test_a_batch_is_claimed_and_recorded_in_two_transactions(
    session_factory: sessionmaker[DbSession], counting_relay: CountingRelay,
    transport: SMTPTransport,
) -> None:
    counting_relay.handler.refuse = {"p3@example.org"}
    for n in range(10):
        queue_reply(session_factory, f"p{n}@example.org")
    sender = sender_with(session_factory, transport)
    assert commits_during(session_factory, sender.run_once) == 2
    rows = outbound(session_factory)
    assert [r.status for r in rows] == ["sent"] * 3 + ["failed"] + ["sent"] * 6
    assert all(r.sent_at == START for r in rows if r.status == "sent")


def test_a_slow_batch_is_recorded_as_it_goes(
    session_factory: sessionmaker[DbSession], counting_relay: CountingRelay,
    transport: SMTPTransport,
) -> None:
    for n in range(4):
        queue_reply(session_factory, f"p{n}@example.org")
    sender = sender_with(session_factory, transport, record_within=0.0)
    assert commits_during(session_factory, sender.run_once) == 1 + 4
    assert {r.status for r in outbound(session_factory)} == {"sent"}


def test_nothing_is_marked_sent_that_the_relay_did_not_accept(
    session_factory: sessionmaker[DbSession], counting_relay: CountingRelay,
    transport: SMTPTransport,
) -> None:
    # The relay takes two mails of the batch, then refuses for now: only those two are
    # marked sent, in the one transaction after the batch; the others wait for a retry.
    for n in range(4):
        queue_reply(session_factory, f"p{n}@example.org")
    handler = counting_relay.handler

    def busy_after_two() -> None:
        if len(handler.received) == 2:
            handler.response = "451 4.3.0 try later"

    handler.on_data = busy_after_two
    assert sender_with(session_factory, transport).run_once() == 4
    rows = outbound(session_factory)
    assert [(r.status, r.attempts) for r in rows] == [("sent", 1)] * 2 + [("pending", 1)] * 2
    assert all((r.last_error or "").startswith("451") for r in rows[2:])
    assert received(counting_relay) == ["p0@example.org", "p1@example.org"]
    assert (counting_relay.connections, handler.rsets) == (1, 2)
