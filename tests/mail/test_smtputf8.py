"""SMTPUTF8 through the real listener: a non-ASCII sender address, which the server could
never answer, is refused at MAIL FROM with a 5xx that says why (never 250 and silence);
mail from an ASCII address that uses SMTPUTF8 for its UTF-8 headers is answered."""

from __future__ import annotations

import dataclasses
import smtplib
import socket
from datetime import timedelta
from email.message import EmailMessage

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db.models import InboundMessage
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.server import MailServer

from .support import SERVER_ADDRESS, Relay, wait_for

FAST = Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1))
RAW = "From: jörg@example.org\r\nTo: pbmserv@emergo.test\r\nSubject: help\r\n\r\nhi\r\n"


@pytest.fixture
def server(
    config: Config, session_factory: sessionmaker[Session], relay: Relay
) -> MailServer:
    mail_server = MailServer(
        dataclasses.replace(config, outbound=relay.url), session_factory,
        backoff=FAST, poll_seconds=0.2,
    )
    mail_server.start()
    yield mail_server  # type: ignore[misc]
    mail_server.stop()


def _stored(session_factory: sessionmaker[Session]) -> int:
    with session_factory() as session:
        return session.scalar(select(func.count()).select_from(InboundMessage)) or 0


def _refused_clearly(code: int, text: bytes) -> None:
    assert code == 553, (code, text)
    assert b"5.6.7" in text and b"ASCII" in text


def test_a_non_ascii_sender_is_refused_at_mail_from(
    server: MailServer, session_factory: sessionmaker[Session], relay: Relay
) -> None:
    port = server.config.smtp_port
    # As an SMTPUTF8 client sends it (smtplib, Postfix relaying such mail).
    with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test") as smtp:
        smtp.ehlo()
        assert smtp.has_extn("smtputf8")
        with pytest.raises(smtplib.SMTPSenderRefused) as refused:
            smtp.sendmail("jörg@example.org", [SERVER_ADDRESS], RAW.encode(),
                          mail_options=["SMTPUTF8"])
        _refused_clearly(refused.value.smtp_code, refused.value.smtp_error)
    msg = EmailMessage()
    msg["From"] = "Jörg <jörg@bücher.example>"
    msg["To"] = SERVER_ADDRESS
    msg["Subject"] = "help"
    msg.set_content("hi")
    with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test") as smtp:
        with pytest.raises(smtplib.SMTPSenderRefused) as refused:
            smtp.send_message(msg)  # smtplib asks for SMTPUTF8 by itself
        _refused_clearly(refused.value.smtp_code, refused.value.smtp_error)
    # A client that sends the address raw, without asking for SMTPUTF8.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock, \
            sock.makefile("rb") as lines:
        lines.readline()
        sock.sendall(b"HELO client.test\r\n")
        lines.readline()
        sock.sendall("MAIL FROM:<jörg@example.org>\r\n".encode())
        answer = lines.readline()
        sock.sendall(b"QUIT\r\n")
    _refused_clearly(int(answer[:3]), answer)
    assert _stored(session_factory) == 0
    assert relay.handler.messages() == []


def test_an_ascii_sender_using_smtputf8_is_answered(
    server: MailServer, session_factory: sessionmaker[Session], relay: Relay
) -> None:
    raw = ("From: Jörg Müller <joerg@example.org>\r\nTo: pbmserv@emergo.test\r\n"
           "Subject: help\r\nMessage-ID: <utf8@example.org>\r\n\r\nGrüße\r\n")
    with smtplib.SMTP("127.0.0.1", server.config.smtp_port, local_hostname="client.test") as smtp:
        assert smtp.sendmail("joerg@example.org", [SERVER_ADDRESS], raw.encode(),
                             mail_options=["SMTPUTF8"]) == {}
    [reply] = wait_for(relay.handler.messages)
    assert reply["To"] == "joerg@example.org"
    assert reply["In-Reply-To"] == "<utf8@example.org>"
