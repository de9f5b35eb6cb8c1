"""The durable inbox and outbox: the queue operations the mail pipeline runs on the models.

Every function receives the session of the caller's unit of work and does not commit.

Claims are committed before the work starts (status ``processing``/``sending``, attempts
counted, ``claimed_by`` = ``host:pid:thread``), so a mail that kills its worker still counts
as an attempt. A claim whose process is gone (same host, pid not alive) or that is older
than the lease is released by :func:`release_stale_claims`; that is how a message in hand at
a crash is retried after the restart. On PostgreSQL, claims use ``FOR UPDATE SKIP LOCKED`` so
that several processes share the queues; SQLite serialises writers (``BEGIN IMMEDIATE``).
"""

from __future__ import annotations

import os
import re
import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from pbm_emergo.db.models import (
    INBOUND_DEAD,
    INBOUND_DONE,
    INBOUND_IGNORED,
    INBOUND_PENDING,
    INBOUND_PROCESSING,
    OUTBOUND_DEAD,
    OUTBOUND_FAILED,
    OUTBOUND_PENDING,
    OUTBOUND_SENDING,
    OUTBOUND_SENT,
    InboundMessage,
    OutboundMessage,
)

MAX_INBOUND_ATTEMPTS = 5  # then the message is dead-lettered
MAX_OUTBOUND_ATTEMPTS = 20  # with backoff capped at 6 hours: about four days of retries
CLAIM_LEASE = timedelta(minutes=15)
ERROR_LIMIT = 2000

_BOARD_IN_SUBJECT = re.compile(r"^\s*emergo\s+[a-z]+\s+(\d{1,9})\b", re.IGNORECASE)


def worker_name() -> str:
    """``host:pid:thread``, the value of ``claimed_by`` for claims made by this thread."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.current_thread().name}"[:128]


def board_of_subject(subject: str) -> int | None:
    """The board a command Subject is about (``emergo move 101 ...``), for per-board order."""
    match = _BOARD_IN_SUBJECT.match(subject)
    return int(match.group(1)) if match else None


def _skip_locked(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


# --- inbox -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stored:
    id: int
    duplicate: bool


def find_inbound(session: Session, envelope_sender: str, message_id: str) -> int | None:
    """The id of the stored mail with this envelope sender and Message-ID, if any."""
    return session.scalar(
        select(InboundMessage.id).where(
            InboundMessage.envelope_sender == envelope_sender,
            InboundMessage.message_id == message_id,
        )
    )


def store_inbound(
    session: Session,
    *,
    raw: bytes,
    envelope_sender: str,
    recipients: Sequence[str],
    message_id: str,
    subject: str,
    now: datetime,
) -> Stored:
    """Store a received mail (once per envelope sender and Message-ID)."""
    existing = find_inbound(session, envelope_sender, message_id)
    if existing is not None:
        return Stored(existing, duplicate=True)
    message = InboundMessage(
        raw=raw,
        envelope_sender=envelope_sender,
        envelope_recipients=list(recipients),
        message_id=message_id,
        received_at=now,
        status=INBOUND_PENDING,
        attempts=0,
        subject=subject[:900] or None,
        board_number=board_of_subject(subject),
    )
    session.add(message)
    session.flush()
    return Stored(message.id, duplicate=False)


def claim_inbound(session: Session, *, worker: str, now: datetime) -> InboundMessage | None:
    """Claim the oldest pending mail whose board has no earlier unfinished mail."""
    earlier = aliased(InboundMessage)
    blocked = (
        select(earlier.id)
        .where(
            earlier.board_number == InboundMessage.board_number,
            earlier.id < InboundMessage.id,
            earlier.status.in_((INBOUND_PENDING, INBOUND_PROCESSING)),
        )
        .exists()
    )
    stmt = (
        select(InboundMessage)
        .where(InboundMessage.status == INBOUND_PENDING)
        .where((InboundMessage.board_number.is_(None)) | ~blocked)
        .order_by(InboundMessage.id)
        .limit(1)
    )
    if _skip_locked(session):
        stmt = stmt.with_for_update(skip_locked=True, of=InboundMessage)
    message = session.scalar(stmt)
    if message is None:
        return None
    message.status = INBOUND_PROCESSING
    message.attempts += 1
    message.claimed_by = worker
    message.claimed_at = now
    session.flush()
    return message


def load_claimed_inbound(session: Session, message_id: int, worker: str) -> InboundMessage | None:
    """The message if this worker still holds its claim (locked on PostgreSQL)."""
    stmt = select(InboundMessage).where(InboundMessage.id == message_id)
    if _skip_locked(session):
        stmt = stmt.with_for_update()
    message = session.scalar(stmt)
    if message is None or message.status != INBOUND_PROCESSING or message.claimed_by != worker:
        return None
    return message


def finish_inbound(
    message: InboundMessage, *, now: datetime, ignored: bool = False, note: str | None = None
) -> None:
    message.status = INBOUND_IGNORED if ignored else INBOUND_DONE
    message.processed_at = now
    message.claimed_by = None
    message.last_error = note[:ERROR_LIMIT] if note else None


def fail_inbound(
    session: Session, message_id: int, *, error: str, now: datetime
) -> InboundMessage | None:
    """Record a failed attempt: back to pending, or dead after the last attempt.

    Returns the message when it has just been dead-lettered, else None.
    """
    message = session.get(InboundMessage, message_id)
    if message is None or message.status != INBOUND_PROCESSING:
        return None
    message.last_error = error[:ERROR_LIMIT]
    message.claimed_by = None
    if message.attempts >= MAX_INBOUND_ATTEMPTS:
        message.status = INBOUND_DEAD
        message.processed_at = now
        return message
    message.status = INBOUND_PENDING
    return None


# --- outbox ------------------------------------------------------------------------------


def enqueue_outbound(
    session: Session,
    *,
    recipient: str,
    raw: bytes,
    message_id: str | None,
    subject: str | None,
    board_number: int | None,
    inbound_id: int | None,
    now: datetime,
    status: str = OUTBOUND_PENDING,
    note: str | None = None,
) -> OutboundMessage:
    message = OutboundMessage(
        recipient=recipient,
        raw=raw,
        message_id=message_id,
        subject=subject,
        board_number=board_number,
        inbound_id=inbound_id,
        created_at=now,
        status=status,
        attempts=0,
        next_attempt_at=now,
        last_error=note,
    )
    session.add(message)
    return message


def count_recent_outbound(session: Session, recipient: str, since: datetime) -> int:
    """How many mails to ``recipient`` were queued since ``since`` (for the reply cap)."""
    return session.scalar(
        select(func.count())
        .select_from(OutboundMessage)
        .where(OutboundMessage.recipient == recipient, OutboundMessage.created_at >= since)
    ) or 0


def claim_outbound(
    session: Session, *, worker: str, now: datetime, limit: int = 20
) -> list[OutboundMessage]:
    """Claim up to ``limit`` mails that are due, oldest due first."""
    stmt = (
        select(OutboundMessage)
        .where(OutboundMessage.status == OUTBOUND_PENDING, OutboundMessage.next_attempt_at <= now)
        .order_by(OutboundMessage.next_attempt_at, OutboundMessage.id)
        .limit(limit)
    )
    if _skip_locked(session):
        stmt = stmt.with_for_update(skip_locked=True)
    messages = list(session.scalars(stmt))
    for message in messages:
        message.status = OUTBOUND_SENDING
        message.attempts += 1
        message.claimed_by = worker
        message.claimed_at = now
    session.flush()
    return messages


def mark_outbound(
    session: Session,
    message_id: int,
    *,
    now: datetime,
    sent: bool = False,
    permanent_error: str | None = None,
    temporary_error: str | None = None,
    retry_at: datetime | None = None,
) -> str | None:
    """Record a delivery attempt's outcome; returns the new status."""
    message = session.get(OutboundMessage, message_id)
    if message is None:
        return None
    message.claimed_by = None
    if sent:
        message.status = OUTBOUND_SENT
        message.sent_at = now
        message.last_error = None
    elif permanent_error is not None:
        message.status = OUTBOUND_FAILED
        message.last_error = permanent_error[:ERROR_LIMIT]
    else:
        message.last_error = (temporary_error or "temporary failure")[:ERROR_LIMIT]
        if message.attempts >= MAX_OUTBOUND_ATTEMPTS:
            message.status = OUTBOUND_DEAD
        else:
            message.status = OUTBOUND_PENDING
            message.next_attempt_at = retry_at or now
    return message.status


def next_outbound_due(session: Session) -> datetime | None:
    """When the next pending outbound mail is due (for the sender's sleep)."""
    return session.scalar(
        select(func.min(OutboundMessage.next_attempt_at)).where(
            OutboundMessage.status == OUTBOUND_PENDING
        )
    )


# --- crash recovery ----------------------------------------------------------------------


def _claim_is_stale(claimed_by: str | None, claimed_at: datetime | None, now: datetime) -> bool:
    if claimed_at is None or claimed_at < now - CLAIM_LEASE:
        return True
    host, _, rest = (claimed_by or "").partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def release_stale_claims(session: Session, *, now: datetime) -> tuple[int, int]:
    """Put back the claims of crashed processes; returns (inbound, outbound) released.

    A claim is stale when its process on this host no longer exists, or it is older than
    :data:`CLAIM_LEASE` (a process on another machine that died).
    """
    inbound = 0
    for message in session.scalars(
        select(InboundMessage).where(InboundMessage.status == INBOUND_PROCESSING)
    ):
        if _claim_is_stale(message.claimed_by, message.claimed_at, now):
            message.claimed_by = None
            message.last_error = "the worker stopped while processing this message"
            if message.attempts >= MAX_INBOUND_ATTEMPTS:
                message.status = INBOUND_DEAD
                message.processed_at = now
            else:
                message.status = INBOUND_PENDING
            inbound += 1
    outbound = 0
    for out in session.scalars(
        select(OutboundMessage).where(OutboundMessage.status == OUTBOUND_SENDING)
    ):
        if _claim_is_stale(out.claimed_by, out.claimed_at, now):
            out.claimed_by = None
            out.status = OUTBOUND_PENDING
            out.next_attempt_at = now
            outbound += 1
    session.flush()
    return inbound, outbound


__all__ = [
    "INBOUND_DEAD",
    "INBOUND_DONE",
    "MAX_INBOUND_ATTEMPTS",
    "OUTBOUND_SENT",
    "Stored",
    "claim_inbound",
    "claim_outbound",
    "count_recent_outbound",
    "enqueue_outbound",
    "fail_inbound",
    "finish_inbound",
    "load_claimed_inbound",
    "mark_outbound",
    "release_stale_claims",
    "store_inbound",
    "worker_name",
]
