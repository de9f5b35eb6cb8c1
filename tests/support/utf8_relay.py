"""A recording relay that does or does not offer SMTPUTF8, and remembers for each mail
whether it came with the SMTPUTF8 parameter; sending a command mail from any address."""

from __future__ import annotations

import smtplib
import threading
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbm_emergo.config import RELAY_ANSWERS
from tests.support.mail import SERVER_ADDRESS, MayOfferPipelining, Relay


@dataclass(frozen=True)
class Relayed:
    """One mail as the relay got it."""

    mail_from: str
    rcpt_tos: list[str]
    smtputf8: bool  # MAIL FROM carried the SMTPUTF8 parameter
    raw: bytes
    msg: EmailMessage

    @property
    def head(self) -> bytes:
        return self.raw.partition(b"\r\n\r\n")[0]


@dataclass
class Utf8RecordingHandler(MayOfferPipelining):
    relayed: list[Relayed] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(  # noqa: N802 - aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        raw = envelope.original_content or b""
        msg = BytesParser(policy=policy.default).parsebytes(raw)
        assert isinstance(msg, EmailMessage)
        with self.lock:
            self.relayed.append(Relayed(envelope.mail_from or "", list(envelope.rcpt_tos),
                                        envelope.smtp_utf8, raw, msg))
        return "250 OK"

    def to(self, address: str) -> list[Relayed]:
        with self.lock:
            return [r for r in self.relayed if address in r.rcpt_tos]

    def messages(self) -> list[EmailMessage]:
        with self.lock:
            return [r.msg for r in self.relayed]


class Utf8Relay(Relay):
    """A real aiosmtpd relay on 127.0.0.1 that offers SMTPUTF8 or not (and PIPELINING or
    not)."""

    def __init__(
        self, *, smtputf8: bool, port: int | None = None, pipelining: bool = False
    ) -> None:
        super().__init__(port)
        self.smtputf8 = smtputf8
        self.handler = Utf8RecordingHandler(pipelining=pipelining)  # type: ignore[assignment]
        # A relay on a port used by an earlier test must not inherit its answer.
        RELAY_ANSWERS.forget()

    def start(self) -> None:
        self.controller = Controller(
            self.handler, hostname="127.0.0.1", port=self.port, server_hostname="relay.test",
            decode_data=False, enable_SMTPUTF8=self.smtputf8,
        )
        self.controller.start()


def utf8_mail(subject: str, sender: str, *, message_id: str, body: str = "") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = SERVER_ADDRESS
    msg["Subject"] = subject
    msg["Message-ID"] = message_id
    msg.set_content(body or "\n")
    return msg


def send_any(port: int, msg: EmailMessage) -> None:
    """Submit ``msg`` as an MUA does: smtplib asks for SMTPUTF8 by itself when an address
    is not ASCII (and then writes the headers in UTF-8)."""
    with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test", timeout=30) as smtp:
        smtp.send_message(msg)
