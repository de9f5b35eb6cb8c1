"""Deliver the outbox: to an SMTP relay (``smtp://host:port``) or a local maildir
(``maildir:PATH``), with exponential backoff on temporary failures."""

from __future__ import annotations

import logging
import mailbox
import smtplib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import queues
from pbm_emergo.db.models import OutboundMessage
from pbm_emergo.db.types import utcnow
from pbm_emergo.mail import queue

log = logging.getLogger(__name__)

SMTP_TIMEOUT = 30.0


class DeliveryError(Exception):
    """A delivery attempt failed; ``permanent`` says whether retrying is pointless."""

    def __init__(self, message: str, *, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


class Transport(Protocol):
    def deliver(self, sender: str, recipient: str, raw: bytes) -> None:
        """Hand one mail over; raise :class:`DeliveryError` when that fails."""


class SMTPTransport:
    """Delivery to an SMTP relay: 5xx is permanent, 4xx and connection errors temporary."""

    def __init__(self, host: str, port: int, local_hostname: str) -> None:
        self.host = host
        self.port = port
        self.local_hostname = local_hostname

    def deliver(self, sender: str, recipient: str, raw: bytes) -> None:
        try:
            with smtplib.SMTP(
                self.host, self.port, local_hostname=self.local_hostname, timeout=SMTP_TIMEOUT
            ) as smtp:
                smtp.sendmail(sender, [recipient], raw)
        except smtplib.SMTPRecipientsRefused as exc:
            code, text = next(iter(exc.recipients.values()))
            raise DeliveryError(_describe(code, text), permanent=code >= 500) from exc
        except smtplib.SMTPResponseException as exc:
            raise DeliveryError(
                _describe(exc.smtp_code, exc.smtp_error), permanent=exc.smtp_code >= 500
            ) from exc
        except (smtplib.SMTPException, OSError) as exc:
            raise DeliveryError(f"{type(exc).__name__}: {exc}", permanent=False) from exc
        except UnicodeError as exc:
            # smtplib sends commands in ASCII: such an address can never be delivered.
            raise DeliveryError(
                f"the address {recipient!r} cannot be sent over SMTP", permanent=True
            ) from exc


def _describe(code: int, text: bytes | str) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {text}"


class MaildirTransport:
    """Delivery into a local maildir (the default: a new user sees replies with no mail setup)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def deliver(self, sender: str, recipient: str, raw: bytes) -> None:
        try:
            box = mailbox.Maildir(self.path, create=True)
            box.add(raw.replace(b"\r\n", b"\n"))
        except OSError as exc:
            raise DeliveryError(f"maildir {self.path}: {exc}", permanent=False) from exc


def transport_for(outbound: str, local_hostname: str) -> Transport:
    """The transport for ``smtp://host:port`` or ``maildir:PATH``."""
    if outbound.startswith("maildir:"):
        return MaildirTransport(Path(outbound[len("maildir:") :]).expanduser())
    parts = urlsplit(outbound)
    if parts.scheme == "smtp" and parts.hostname:
        return SMTPTransport(parts.hostname, parts.port or 25, local_hostname)
    raise ValueError(f"outbound must be smtp://host:port or maildir:PATH, not {outbound!r}")


@dataclass(frozen=True)
class Backoff:
    """Delay before the next attempt after n failed ones: base * 2**(n-1), capped."""

    base: timedelta = queues.DEFAULT_BASE_DELAY
    cap: timedelta = queues.DEFAULT_MAX_DELAY

    def delay(self, attempts: int) -> timedelta:
        return queues.retry_delay(attempts, self.base, self.cap)


def _attach(session: Session, message: OutboundMessage) -> OutboundMessage:
    """Re-attach a message claimed in an earlier transaction, as it was then (never merged:
    merging would write our stale claim over another worker's)."""
    session.add(message)
    return message


class OutboxSender:
    """Claims due outbound mail, delivers it, records the outcome."""

    def __init__(
        self,
        session_factory: sessionmaker[Session],
        transport: Transport,
        envelope_sender: str,
        *,
        backoff: Backoff | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.session_factory = session_factory
        self.transport = transport
        self.envelope_sender = envelope_sender
        self.backoff = backoff or Backoff()
        self.clock = clock

    def run_once(self, stop: threading.Event | None = None) -> int:
        """Deliver one batch of due mail; returns how many were attempted."""
        with self.session_factory.begin() as session:
            claimed = queues.claim_due_outbound(session, queue.worker_name(), self.clock())
        for index, message in enumerate(claimed):
            if stop is not None and stop.is_set():
                # Put back what we did not try, so that nothing waits for the lease.
                with self.session_factory.begin() as session:
                    for rest in claimed[index:]:
                        queues.mark_outbound_failed(
                            session, _attach(session, rest), "not tried: shutting down",
                            self.clock(), base_delay=timedelta(0),
                        )
                break
            self._deliver_one(message)
        return len(claimed)

    def _deliver_one(self, message: OutboundMessage) -> None:
        try:
            self.transport.deliver(self.envelope_sender, message.recipient, message.raw)
        except DeliveryError as exc:
            with self.session_factory.begin() as session:
                queues.mark_outbound_failed(
                    session,
                    _attach(session, message),
                    str(exc),
                    self.clock(),
                    permanent=exc.permanent,
                    base_delay=self.backoff.base,
                    max_delay=self.backoff.cap,
                )
                status = message.status
            log.warning("outbound %d to %s: %s (now %s)", message.id, message.recipient, exc,
                        status)
            return
        with self.session_factory.begin() as session:
            queues.mark_outbound_sent(session, _attach(session, message), self.clock())
        log.info("outbound %d delivered to %s", message.id, message.recipient)

    def seconds_until_due(self, maximum: float) -> float:
        """How long the sender may sleep before something is due (at most ``maximum``)."""
        with self.session_factory.begin() as session:
            due = queue.next_outbound_due(session)
        if due is None:
            return maximum
        return max(0.0, min(maximum, (due - self.clock()).total_seconds()))
