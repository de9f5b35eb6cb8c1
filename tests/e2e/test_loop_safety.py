"""Loop safety through the real listener: mail sent by programs (bounces, delivery and read
reports, vacation replies, mail marked by RFC 3834's Auto-Submitted in any of its spellings)
is stored and marked, never answered; mail marked as sent by a person is answered."""

from __future__ import annotations

import dataclasses
import smtplib
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db.models import InboundMessage
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support.mail import SERVER_ADDRESS, Relay, command_mail, free_port, wait_for

FAST = Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1))

BOUNCE = (
    "From: Mail Delivery System <postmaster@mx.example.net>\r\n"
    "To: {sender}\r\n"
    "Subject: help\r\n"
    "Message-ID: <dsn-1@mx.example.net>\r\n"
    "MIME-Version: 1.0\r\n"
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"\r\n'
    "\r\n"
    "--b1\r\n"
    "Content-Type: text/plain\r\n"
    "\r\n"
    "Your message could not be delivered.\r\n"
    "--b1\r\n"
    "Content-Type: message/delivery-status\r\n"
    "\r\n"
    "Reporting-MTA: dns; mx.example.net\r\n"
    "\r\n"
    "Final-Recipient: rfc822; nobody@example.net\r\n"
    "Action: failed\r\n"
    "Status: 5.1.1\r\n"
    "--b1--\r\n"
)

READ_RECEIPT = (
    "From: {sender}\r\n"
    "To: pbmserv@emergo.test\r\n"
    "Subject: Read: Emergo Board 101 alice\r\n"
    "Message-ID: <mdn-1@example.org>\r\n"
    "MIME-Version: 1.0\r\n"
    'Content-Type: multipart/report; report-type=disposition-notification; boundary="b2"\r\n'
    "\r\n"
    "--b2\r\n"
    "Content-Type: text/plain\r\n"
    "\r\n"
    "emergo help\r\n"
    "--b2\r\n"
    "Content-Type: message/disposition-notification\r\n"
    "\r\n"
    "Final-Recipient: rfc822; reader@example.org\r\n"
    "Disposition: automatic-action/MDN-sent-automatically; displayed\r\n"
    "--b2--\r\n"
)

# sender -> the headers that say a program sent the mail
AUTOMATIC: dict[str, dict[str, str]] = {
    "precedence@example.org": {"Precedence": "auto_reply"},
    "precedence-comment@example.org": {"Precedence": "Junk (a filter)"},
    "x-autoreply@example.org": {"X-Autoreply": "yes"},
    "x-autorespond@example.org": {"X-Autorespond": "Out of the office until Monday"},
    "generated@example.org": {"Auto-Submitted": "AUTO-GENERATED"},
    "notified@example.org": {"Auto-Submitted": 'auto-notified; owner-email="me@example.org"'},
    "commented@example.org": {"Auto-Submitted": "(vacation; back soon) Auto-Replied"},
    "extension@example.org": {"Auto-Submitted": "auto-something-new"},
    "empty@example.org": {"Auto-Submitted": ""},
}
# sender -> headers that still mean a person wrote it
HUMAN: dict[str, dict[str, str]] = {
    "human-comment@example.org": {"Auto-Submitted": "no (typed by hand)"},
    "human-case@example.org": {"Auto-Submitted": "(a person) NO"},
    "human-plain@example.org": {},
}


@pytest.fixture
def relay() -> Iterator[Relay]:
    server = Relay()
    server.start()
    yield server
    server.stop()


def _send_raw(port: int, envelope_sender: str, raw: str) -> None:
    with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test", timeout=30) as smtp:
        smtp.sendmail(envelope_sender, [SERVER_ADDRESS], raw.encode("ascii"))


def test_mail_from_programs_is_stored_and_marked_never_answered(
    db_config: Config, db_sessions: sessionmaker[Session], relay: Relay
) -> None:
    config = dataclasses.replace(
        db_config, address=SERVER_ADDRESS, smtp_port=free_port(), outbound=relay.url
    )
    server = MailServer(config, db_sessions, backoff=FAST, poll_seconds=0.2)
    server.start()
    try:
        port = config.smtp_port
        # A bounce from a non-null envelope sender (Exchange and others send these without
        # Auto-Submitted), and a read receipt whose text part looks like a command.
        _send_raw(port, "postmaster@mx.example.net", BOUNCE.format(sender="bounce@example.org"))
        _send_raw(port, "reader@example.org", READ_RECEIPT.format(sender="reader@example.org"))
        for sender, headers in {**AUTOMATIC, **HUMAN}.items():
            msg = command_mail("help", sender=sender, headers=headers,
                               message_id=f"<{sender}>")
            with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test") as smtp:
                smtp.send_message(msg)
        total = 2 + len(AUTOMATIC) + len(HUMAN)

        def finished() -> list[InboundMessage] | None:
            with db_sessions() as session:
                rows = list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))
            done = [r for r in rows if r.status in ("done", "ignored")]
            return rows if len(done) == total else None

        rows = wait_for(finished)
        wait_for(lambda: len(relay.handler.messages()) >= len(HUMAN))
    finally:
        server.stop()
    answered = sorted(str(m["To"]) for m in relay.handler.messages())
    assert answered == sorted(HUMAN)
    by_sender = {r.message_id.strip("<>"): r for r in rows if r.message_id}
    for sender in ["dsn-1@mx.example.net", "mdn-1@example.org", *AUTOMATIC]:
        row = by_sender[sender]
        assert row.status == "ignored", sender
        assert row.not_answered, sender
        assert row.raw  # stored as received
    for report in ("dsn-1@mx.example.net", "mdn-1@example.org"):
        assert "report" in (by_sender[report].not_answered or "")
    assert by_sender["precedence@example.org"].not_answered == "Precedence: auto_reply"
    assert by_sender["commented@example.org"].not_answered == "Auto-Submitted: auto-replied"
    assert by_sender["generated@example.org"].not_answered == "Auto-Submitted: auto-generated"
    for sender in HUMAN:
        assert by_sender[sender].status == "done" and by_sender[sender].not_answered is None
