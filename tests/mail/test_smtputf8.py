"""SMTPUTF8 through the real listener and a real relay (aiosmtpd, with and without SMTPUTF8).

A non-ASCII sender (jörg@bücher.example) is answered when the relay can deliver to it, with
SMTPUTF8 and a To header in UTF-8; when it cannot, the sender is refused at MAIL FROM with a
553 5.6.7 that says why (never 250 and silence). A non-ASCII address without the SMTPUTF8
parameter is always refused. Mail from an ASCII address that uses SMTPUTF8 for its UTF-8
headers is answered either way; but one whose From (the address answered) is not ASCII is
refused at DATA with 553 5.6.7 when the relay cannot deliver there, and nothing is stored.
"""

from __future__ import annotations

import dataclasses
import mailbox
import smtplib
import socket
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo import config as config_module
from pbm_emergo.app.messages import Reply
from pbm_emergo.config import Config
from pbm_emergo.db.models import InboundMessage, OutboundMessage
from pbm_emergo.mail.outbound import Backoff, DeliveryError, SMTPTransport
from pbm_emergo.ops.server import MailServer
from pbm_emergo.views.reply_mail import build_reply, readdressed_bytes, reply_bytes
from tests.support.mail import SERVER_ADDRESS, free_port, wait_for
from tests.support.utf8_relay import Utf8Relay, send_any, utf8_mail

FAST = Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1))
JOERG = "jörg@bücher.example"
JOERG_TO = "To: jörg@bücher.example".encode()  # the header line in UTF-8 (RFC 6532)
RAW = f"From: {JOERG}\r\nTo: {SERVER_ADDRESS}\r\nSubject: help\r\n\r\nhi\r\n"

Start = Callable[..., MailServer]


@pytest.fixture
def start(config: Config, session_factory: sessionmaker[Session]) -> Iterator[Start]:
    """Start the server with these settings (``outbound`` a relay's URL or a maildir)."""
    started: list[MailServer] = []

    def make(**settings: object) -> MailServer:
        server = MailServer(
            dataclasses.replace(config, **settings),  # type: ignore[arg-type]
            session_factory, backoff=FAST, poll_seconds=0.2,
        )
        server.start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


def relay_of(smtputf8: bool) -> Iterator[Utf8Relay]:
    relay = Utf8Relay(smtputf8=smtputf8)
    relay.start()
    yield relay
    relay.stop()


@pytest.fixture
def utf8_relay() -> Iterator[Utf8Relay]:
    yield from relay_of(True)


@pytest.fixture
def ascii_relay() -> Iterator[Utf8Relay]:
    yield from relay_of(False)


def header_lines(raw: bytes) -> list[bytes]:
    return raw.replace(b"\r\n", b"\n").partition(b"\n\n")[0].split(b"\n")


def _stored(session_factory: sessionmaker[Session]) -> int:
    with session_factory() as session:
        return session.scalar(select(func.count()).select_from(InboundMessage)) or 0


def _refused_for_the_relay(code: int, text: bytes) -> None:
    assert code == 553, (code, text)
    assert text.startswith(b"5.6.7"), text
    assert b"relay cannot deliver to non-ASCII addresses" in text
    assert b"plain ASCII address" in text


def _mail_from_raw(port: int, address: str, options: str = "") -> bytes:
    """A client that sends MAIL FROM by hand: the first answer line to it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock, \
            sock.makefile("rb") as lines:
        lines.readline()
        sock.sendall(b"EHLO client.test\r\n")
        while lines.readline()[3:4] == b"-":
            pass
        sock.sendall(f"MAIL FROM:<{address}>{options}\r\n".encode())
        answer = lines.readline()
        sock.sendall(b"QUIT\r\n")
    return answer


def test_without_smtputf8_at_the_relay_a_non_ascii_sender_is_refused_clearly(
    start: Start, session_factory: sessionmaker[Session], ascii_relay: Utf8Relay
) -> None:
    server = start(outbound=ascii_relay.url)
    port = server.config.smtp_port
    # As an SMTPUTF8 client sends it (smtplib, Postfix relaying such mail).
    with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test") as smtp:
        smtp.ehlo()
        assert smtp.has_extn("smtputf8")  # offered: UTF-8 headers from ASCII senders are fine
        with pytest.raises(smtplib.SMTPSenderRefused) as refused:
            smtp.sendmail(JOERG, [SERVER_ADDRESS], RAW.encode(), mail_options=["SMTPUTF8"])
        _refused_for_the_relay(refused.value.smtp_code, refused.value.smtp_error)
    msg = utf8_mail("help", f"Jörg <{JOERG}>", message_id="<j1@example.org>")
    with pytest.raises(smtplib.SMTPSenderRefused) as refused:
        send_any(port, msg)  # smtplib asks for SMTPUTF8 by itself
    _refused_for_the_relay(refused.value.smtp_code, refused.value.smtp_error)
    assert _stored(session_factory) == 0
    assert ascii_relay.handler.relayed == []


@pytest.mark.parametrize("relay_takes_it", [True, False])
def test_a_non_ascii_address_without_the_smtputf8_parameter_is_refused(
    start: Start, session_factory: sessionmaker[Session], relay_takes_it: bool
) -> None:
    for relay in relay_of(relay_takes_it):
        server = start(outbound=relay.url)
        answer = _mail_from_raw(server.config.smtp_port, JOERG)
        # 553 5.6.7 (RFC 6531): the address may not be used without the parameter.
        assert answer.startswith(b"553 5.6.7 ") and b"needs the SMTPUTF8 parameter" in answer
        assert _mail_from_raw(server.config.smtp_port, JOERG, " SMTPUTF8").startswith(
            b"250 " if relay_takes_it else b"553 5.6.7 "
        )
        assert _stored(session_factory) == 0


def test_with_smtputf8_at_the_relay_a_non_ascii_sender_is_answered_in_utf8(
    start: Start, session_factory: sessionmaker[Session], utf8_relay: Utf8Relay
) -> None:
    server = start(outbound=utf8_relay.url)
    # Decomposed (o + U+0308) and in capitals: the same address once cleaned (NFC, lower).
    sender = "Jo\u0308rg@BÜCHER.example"
    send_any(server.config.smtp_port,
             utf8_mail("help", f"Jörg <{sender}>", message_id="<j2@example.org>"))
    [reply] = wait_for(lambda: utf8_relay.handler.to(JOERG))
    assert reply.rcpt_tos == [JOERG] and reply.smtputf8 and reply.mail_from == SERVER_ADDRESS
    assert JOERG_TO in header_lines(reply.raw)
    assert reply.msg["In-Reply-To"] == "<j2@example.org>"
    assert "Emergo" in reply.msg.get_content()
    with session_factory() as session:
        assert session.scalars(select(InboundMessage.envelope_sender)).one() == JOERG


def test_an_invalid_non_ascii_sender_is_refused(
    start: Start, session_factory: sessionmaker[Session], utf8_relay: Utf8Relay
) -> None:
    server = start(outbound=utf8_relay.url)
    for bad in ("j\u202erg@bücher.example", "jörg@bü\u200dcher.example", "jö\u00a0rg@x.example"):
        answer = _mail_from_raw(server.config.smtp_port, bad, " SMTPUTF8")
        assert answer.startswith(b"553 5.1.7 "), (bad, answer)
    assert _stored(session_factory) == 0


def test_the_setting_overrides_what_the_relay_says(
    start: Start, session_factory: sessionmaker[Session], utf8_relay: Utf8Relay,
    ascii_relay: Utf8Relay,
) -> None:
    # "no": refused although the relay would take it.
    server = start(outbound=utf8_relay.url, smtputf8="no")
    answer = _mail_from_raw(server.config.smtp_port, JOERG, " SMTPUTF8")
    _refused_for_the_relay(int(answer[:3]), answer[4:])
    # The first server goes before the second starts on the same database: its sender
    # (relaying to the relay that offers SMTPUTF8) must not be the one to take the reply.
    server.stop()
    # "yes" with a relay that does not offer it: accepted, and the reply fails for good
    # with the reason recorded (not retried for ever).
    server = start(outbound=ascii_relay.url, smtputf8="yes", smtp_port=free_port())
    send_any(server.config.smtp_port, utf8_mail("help", JOERG, message_id="<j3@example.org>"))

    def failed() -> list[OutboundMessage]:
        with session_factory() as session:
            return list(session.scalars(
                select(OutboundMessage).where(OutboundMessage.status == "failed")
            ))

    [reply] = wait_for(failed)
    assert reply.recipient == JOERG and reply.attempts == 1
    assert reply.last_error is not None and "does not offer SMTPUTF8" in reply.last_error
    assert ascii_relay.handler.relayed == []


def test_a_relay_that_cannot_be_asked_means_try_again_later(
    start: Start, session_factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config_module, "RELAY_UNKNOWN_SECONDS", 0.0)
    relay = Utf8Relay(smtputf8=True)  # not started yet: nothing listens on its port
    server = start(outbound=relay.url)
    answer = _mail_from_raw(server.config.smtp_port, JOERG, " SMTPUTF8")
    assert answer.startswith(b"451 4.4.0 ") and b"try again later" in answer
    assert _stored(session_factory) == 0
    relay.start()
    try:
        # The sending MTA tries again: the relay is asked again, and the mail answered.
        send_any(server.config.smtp_port,
                 utf8_mail("help", JOERG, message_id="<j4@example.org>"))
        [reply] = wait_for(lambda: relay.handler.to(JOERG))
        assert reply.smtputf8
    finally:
        relay.stop()


def test_replies_in_the_local_maildir_reach_a_non_ascii_sender(
    start: Start, session_factory: sessionmaker[Session], tmp_path: object
) -> None:
    folder = f"{tmp_path}/maildir"
    server = start(outbound=f"maildir:{folder}")  # auto: a maildir takes any address
    send_any(server.config.smtp_port, utf8_mail("help", JOERG, message_id="<j5@example.org>"))
    # The server makes the maildir with its first mail: opened once the reply is in it (a
    # folder made here too could race the server's, each finding the other's half made).
    arrived = Path(folder) / "new"
    wait_for(lambda: arrived.is_dir() and any(arrived.iterdir()))
    box = mailbox.Maildir(folder, create=False)
    [key] = list(box.keys())
    assert JOERG_TO in header_lines(box.get_bytes(key))


def test_an_ascii_sender_using_smtputf8_is_answered(
    start: Start, ascii_relay: Utf8Relay
) -> None:
    server = start(outbound=ascii_relay.url)
    raw = ("From: Jörg Müller <joerg@example.org>\r\nTo: pbmserv@emergo.test\r\n"
           "Subject: help\r\nMessage-ID: <utf8@example.org>\r\n\r\nGrüße\r\n")
    with smtplib.SMTP("127.0.0.1", server.config.smtp_port, local_hostname="client.test") as smtp:
        assert smtp.sendmail("joerg@example.org", [SERVER_ADDRESS], raw.encode(),
                             mail_options=["SMTPUTF8"]) == {}
    [reply] = wait_for(lambda: ascii_relay.handler.to("joerg@example.org"))
    assert reply.msg["To"] == "joerg@example.org" and not reply.smtputf8
    assert reply.msg["In-Reply-To"] == "<utf8@example.org>"


# A From the server would answer that is not ASCII, behind an ASCII envelope sender.
UTF8_FROM_RAW = (
    f"From: Jörg <{JOERG}>\r\nTo: {SERVER_ADDRESS}\r\nSubject: help\r\n"
    "Message-ID: <from-utf8@example.org>\r\n\r\nhi\r\n"
)


def test_a_non_ascii_from_is_refused_at_data_when_the_relay_cannot_answer_it(
    start: Start, session_factory: sessionmaker[Session], ascii_relay: Utf8Relay
) -> None:
    server = start(outbound=ascii_relay.url)
    port = server.config.smtp_port
    with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test") as smtp, \
            pytest.raises(smtplib.SMTPDataError) as refused:
        smtp.sendmail("joerg@example.org", [SERVER_ADDRESS], UTF8_FROM_RAW.encode(),
                      mail_options=["SMTPUTF8"])
    assert refused.value.smtp_code == 553, refused.value
    assert refused.value.smtp_error.startswith(b"5.6.7 ")
    assert b"cannot be answered through this server" in refused.value.smtp_error
    assert _stored(session_factory) == 0
    assert ascii_relay.handler.relayed == []


def test_a_non_ascii_from_is_answered_when_the_relay_takes_smtputf8(
    start: Start, session_factory: sessionmaker[Session], utf8_relay: Utf8Relay
) -> None:
    server = start(outbound=utf8_relay.url)
    with smtplib.SMTP("127.0.0.1", server.config.smtp_port, local_hostname="client.test") as smtp:
        assert smtp.sendmail("joerg@example.org", [SERVER_ADDRESS], UTF8_FROM_RAW.encode(),
                             mail_options=["SMTPUTF8"]) == {}
    [reply] = wait_for(lambda: utf8_relay.handler.to(JOERG))
    assert reply.smtputf8 and reply.msg["In-Reply-To"] == "<from-utf8@example.org>"
    assert _stored(session_factory) == 1


# --- the outbound transport and the reply headers --------------------------------------


def _reply(to: str) -> bytes:
    return reply_bytes(build_reply(Reply(to, "Emergo Board 101 bob", "the board é\n", board=101),
                                   server_address=SERVER_ADDRESS,
                                   now=datetime(2024, 5, 1, tzinfo=UTC)))


@pytest.mark.parametrize("pipelining", [False, True], ids=["one-by-one", "pipelined"])
def test_the_transport_uses_smtputf8_only_where_needed(pipelining: bool) -> None:
    utf8_relay = Utf8Relay(smtputf8=True, pipelining=pipelining)
    utf8_relay.start()
    transport = SMTPTransport("127.0.0.1", utf8_relay.port, "emergo.test")
    try:
        transport.deliver(SERVER_ADDRESS, JOERG, _reply(JOERG))
        transport.deliver(SERVER_ADDRESS, "bob@example.org", _reply("bob@example.org"))
    finally:
        transport.close()
        utf8_relay.stop()
    first, second = utf8_relay.handler.relayed
    assert first.rcpt_tos == [JOERG] and first.smtputf8 and JOERG_TO in header_lines(first.raw)
    # Over the same connection, a plain mail goes plain.
    assert second.rcpt_tos == ["bob@example.org"] and not second.smtputf8


@pytest.mark.parametrize("pipelining", [False, True], ids=["one-by-one", "pipelined"])
def test_a_relay_without_smtputf8_fails_such_mail_for_good(pipelining: bool) -> None:
    ascii_relay = Utf8Relay(smtputf8=False, pipelining=pipelining)
    ascii_relay.start()
    transport = SMTPTransport("127.0.0.1", ascii_relay.port, "emergo.test")
    try:
        with pytest.raises(DeliveryError) as failed:
            transport.deliver(SERVER_ADDRESS, JOERG, _reply(JOERG))
        assert failed.value.permanent and "does not offer SMTPUTF8" in str(failed.value)
        # The connection is still good for the next mail.
        transport.deliver(SERVER_ADDRESS, "bob@example.org", _reply("bob@example.org"))
    finally:
        transport.close()
        ascii_relay.stop()
    [only] = ascii_relay.handler.relayed
    assert only.rcpt_tos == ["bob@example.org"]


def test_a_board_mail_is_readdressed_to_a_non_ascii_player_in_utf8() -> None:
    first = _reply("alice@example.org")
    assert first.partition(b"\r\n\r\n")[0].isascii()
    second, _ = readdressed_bytes(first, "Jörg@Bücher.example", server_address=SERVER_ADDRESS)
    assert JOERG_TO in header_lines(second)
    assert first.partition(b"\r\n\r\n")[2] == second.partition(b"\r\n\r\n")[2]
    parsed = BytesParser(policy=policy.SMTPUTF8).parsebytes(second)
    assert parsed["Subject"] == "Emergo Board 101 bob"
    # And back: a mail built for the non-ASCII player, readdressed to an ASCII one.
    third, _ = readdressed_bytes(_reply(JOERG), "alice@example.org", server_address=SERVER_ADDRESS)
    assert third.partition(b"\r\n\r\n")[0].isascii()
