"""Delivering mail by LMTP (RFC 2033) with smtplib.LMTP, as an MTA in front of ``serve
--lmtp`` does: LHLO, then after DATA one reply for each recipient accepted at RCPT."""

from __future__ import annotations

import smtplib
from collections.abc import Sequence
from email import policy
from email.message import EmailMessage

from tests.support.mail import SERVER_ADDRESS


def lmtp_deliver(
    port: int,
    msg: EmailMessage | bytes,
    recipients: Sequence[str] = (SERVER_ADDRESS,),
    envelope_sender: str | None = None,
) -> tuple[list[str], list[tuple[int, bytes]]]:
    """Deliver ``msg`` to 127.0.0.1:``port`` by LMTP: the recipients accepted at RCPT, and
    the replies read after DATA (one for each of them). The session must still be in step
    afterwards (a NOOP is answered 250)."""
    raw = msg if isinstance(msg, bytes) else msg.as_bytes(policy=policy.SMTP)
    if envelope_sender is None:
        envelope_sender = "" if isinstance(msg, bytes) else str(msg["From"])
    with smtplib.LMTP("127.0.0.1", port, local_hostname="mx.test", timeout=30) as lmtp:
        code, answer = lmtp.ehlo()  # smtplib.LMTP says LHLO
        assert code == 250, answer
        lmtp.mail(envelope_sender)
        accepted = [r for r in recipients if lmtp.rcpt(r)[0] == 250]
        replies = [lmtp.data(raw)] if accepted else []
        replies += [lmtp.getreply() for _ in accepted[1:]]
        assert lmtp.noop()[0] == 250
    return accepted, replies


def send(port: int, msg: EmailMessage, envelope_sender: str | None = None) -> None:
    """As tests.support.mail.send, by LMTP: deliver ``msg`` to the server's address; fails
    unless it is taken (250)."""
    accepted, [(code, answer)] = lmtp_deliver(port, msg, envelope_sender=envelope_sender)
    assert accepted == [SERVER_ADDRESS]
    if code != 250:
        raise smtplib.SMTPDataError(code, answer)
