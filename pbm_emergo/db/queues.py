"""The durable mail queues: inbound messages (the inbox) and outbound messages (the outbox).

Pattern for a worker (each step its own short transaction)::

    with factory.begin() as session:           # 1. claim, commit at once
        message = claim_next_inbound(session, worker_name, utcnow())
    ...                                         # 2. process in a new transaction that
    with factory.begin() as session:           #    also writes the replies, then marks it
        session.add(message)                    #    done (or mark_inbound_failed on error)
        enqueue_outbound(session, ..., inbound_id=message.id)
        mark_inbound_done(session, message, utcnow())

A claim is a lease: a message claimed by a worker that died is claimed again once
``claimed_at`` is older than ``lease``. Attempts are counted at claim time, so a message
that crashes its worker every time is still dead-lettered after MAX_INBOUND_ATTEMPTS.

On PostgreSQL claims use ``SELECT ... FOR UPDATE SKIP LOCKED``, so any number of worker
processes on any number of machines can share the queues; on SQLite the whole database is
locked by each writing transaction (``BEGIN IMMEDIATE``) and the claim is a conditional
UPDATE.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import Select, and_, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

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
from pbm_emergo.db.service import rowcount

MAX_INBOUND_ATTEMPTS = 5
# With the default backoff (30 s doubling up to 1 h) this is about two days of retries.
MAX_OUTBOUND_ATTEMPTS = 55
DEFAULT_LEASE = timedelta(minutes=10)
DEFAULT_BASE_DELAY = timedelta(seconds=30)
DEFAULT_MAX_DELAY = timedelta(hours=1)
ERROR_LENGTH = 4000  # last_error keeps the end of longer texts

_S = TypeVar("_S", bound=Select[Any])


def _skip_locked(session: Session, stmt: _S) -> _S:
    if session.get_bind().dialect.name == "postgresql":
        return stmt.with_for_update(skip_locked=True)
    return stmt


def _error_text(error: str | BaseException) -> str:
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return text[-ERROR_LENGTH:]


# --- inbound ---------------------------------------------------------------------------


def enqueue_inbound(
    session: Session,
    raw: bytes,
    envelope_sender: str,
    envelope_recipients: Sequence[str],
    message_id: str | None,
    now: datetime,
    *,
    status: str = INBOUND_PENDING,
) -> tuple[InboundMessage, bool]:
    """Store a received mail; returns (message, created).

    The same Message-ID from the same envelope sender is stored once: a second copy returns
    the first one with ``created=False`` (say 250 to the sender all the same). Use
    ``status="ignored"`` for mail that must never be answered (bounces, auto-replies).
    """
    if message_id is not None:
        existing = _find_inbound(session, envelope_sender, message_id)
        if existing is not None:
            return existing, False
    message = InboundMessage(
        raw=raw,
        envelope_sender=envelope_sender,
        envelope_recipients=list(envelope_recipients),
        message_id=message_id,
        received_at=now,
        status=status,
        attempts=0,
    )
    try:
        with session.begin_nested():
            session.add(message)
    except IntegrityError:
        # A concurrent transaction stored the same message first.
        assert message_id is not None
        existing = _find_inbound(session, envelope_sender, message_id)
        if existing is None:
            raise
        return existing, False
    return message, True


def _find_inbound(session: Session, sender: str, message_id: str) -> InboundMessage | None:
    return session.scalar(
        select(InboundMessage).where(
            InboundMessage.envelope_sender == sender, InboundMessage.message_id == message_id
        )
    )


def claim_next_inbound(
    session: Session, worker: str, now: datetime, *, lease: timedelta = DEFAULT_LEASE
) -> InboundMessage | None:
    """Claim the oldest pending inbound message for ``worker`` (or one whose claim expired),
    counting an attempt. Returns None when there is nothing to do. Commit right away."""
    while True:
        stale = and_(
            InboundMessage.status == INBOUND_PROCESSING, InboundMessage.claimed_at < now - lease
        )
        claimable = or_(InboundMessage.status == INBOUND_PENDING, stale)
        stmt = select(InboundMessage).where(claimable).order_by(InboundMessage.id).limit(1)
        message = session.scalar(_skip_locked(session, stmt))
        if message is None:
            return None
        if message.attempts >= MAX_INBOUND_ATTEMPTS:
            # Its last worker died while holding it: no more tries.
            message.status = INBOUND_DEAD
            message.last_error = message.last_error or "worker lost the message too often"
            message.claimed_by = None
            session.flush()
            continue
        result = session.execute(
            update(InboundMessage)
            .where(InboundMessage.id == message.id, claimable)
            .values(
                status=INBOUND_PROCESSING,
                claimed_by=worker,
                claimed_at=now,
                attempts=InboundMessage.attempts + 1,
            )
            .execution_options(synchronize_session=False)
        )
        if rowcount(result) == 1:
            session.refresh(message)
            return message
        session.expire(message)


def _release_inbound(
    session: Session, message: InboundMessage, now: datetime, **values: object
) -> bool:
    result = session.execute(
        update(InboundMessage)
        .where(
            InboundMessage.id == message.id,
            InboundMessage.status == INBOUND_PROCESSING,
            InboundMessage.claimed_by == message.claimed_by,
        )
        .values(claimed_by=None, claimed_at=None, **values)
        .execution_options(synchronize_session=False)
    )
    session.refresh(message)
    return rowcount(result) == 1


def mark_inbound_done(
    session: Session, message: InboundMessage, now: datetime, *, status: str = INBOUND_DONE
) -> bool:
    """Mark a claimed message processed (``status="ignored"`` for one deliberately not run).
    Returns False, changing nothing, if the claim was lost (expired and taken by another
    worker): the caller should then roll back its transaction."""
    return _release_inbound(session, message, now, status=status, processed_at=now)


def mark_inbound_failed(
    session: Session, message: InboundMessage, error: str | BaseException, now: datetime
) -> bool:
    """Record a failed attempt: back to pending, or dead after MAX_INBOUND_ATTEMPTS.
    Returns False if the claim was lost. Call it in a new transaction after rolling back
    the failed one."""
    status = INBOUND_DEAD if message.attempts >= MAX_INBOUND_ATTEMPTS else INBOUND_PENDING
    return _release_inbound(
        session, message, now, status=status, last_error=_error_text(error), processed_at=None
    )


def requeue_inbound(session: Session, message_id: int, now: datetime) -> bool:
    """Put a dead inbound message back in the queue with a fresh attempt count.
    Returns False if there is no such message or it is not dead: a processed mail is never
    run twice (its commands would be repeated), and one in hand is being processed."""
    result = session.execute(
        update(InboundMessage)
        .where(InboundMessage.id == message_id, InboundMessage.status == INBOUND_DEAD)
        .values(status=INBOUND_PENDING, attempts=0, claimed_by=None, claimed_at=None)
        .execution_options(synchronize_session=False)
    )
    return rowcount(result) == 1


# --- outbound --------------------------------------------------------------------------


def enqueue_outbound(
    session: Session,
    recipient: str,
    raw: bytes,
    now: datetime,
    *,
    inbound_id: int | None = None,
    message_id: str | None = None,
    subject: str | None = None,
    board_number: int | None = None,
) -> OutboundMessage:
    """Queue one mail for one recipient (stored lower-case), due now."""
    message = OutboundMessage(
        recipient=recipient.strip().lower(),
        raw=raw,
        message_id=message_id,
        subject=subject,
        board_number=board_number,
        created_at=now,
        status=OUTBOUND_PENDING,
        attempts=0,
        next_attempt_at=now,
        inbound_id=inbound_id,
    )
    session.add(message)
    session.flush()
    return message


def claim_due_outbound(
    session: Session,
    worker: str,
    now: datetime,
    *,
    limit: int = 10,
    lease: timedelta = DEFAULT_LEASE,
) -> list[OutboundMessage]:
    """Claim up to ``limit`` messages due for sending (oldest first), counting an attempt.
    Commit right away, send, then mark each sent or failed in a new transaction."""
    stale = and_(
        OutboundMessage.status == OUTBOUND_SENDING, OutboundMessage.claimed_at < now - lease
    )
    claimable = or_(
        and_(OutboundMessage.status == OUTBOUND_PENDING, OutboundMessage.next_attempt_at <= now),
        stale,
    )
    stmt = (
        select(OutboundMessage)
        .where(claimable)
        .order_by(OutboundMessage.next_attempt_at, OutboundMessage.id)
        .limit(limit)
    )
    claimed: list[OutboundMessage] = []
    for message in session.scalars(_skip_locked(session, stmt)).all():
        result = session.execute(
            update(OutboundMessage)
            .where(OutboundMessage.id == message.id, claimable)
            .values(
                status=OUTBOUND_SENDING,
                claimed_by=worker,
                claimed_at=now,
                attempts=OutboundMessage.attempts + 1,
            )
            .execution_options(synchronize_session=False)
        )
        if rowcount(result) == 1:
            session.refresh(message)
            claimed.append(message)
        else:
            session.expire(message)
    return claimed


def _release_outbound(session: Session, message: OutboundMessage, **values: object) -> bool:
    result = session.execute(
        update(OutboundMessage)
        .where(
            OutboundMessage.id == message.id,
            OutboundMessage.status == OUTBOUND_SENDING,
            OutboundMessage.claimed_by == message.claimed_by,
        )
        .values(claimed_by=None, claimed_at=None, **values)
        .execution_options(synchronize_session=False)
    )
    session.refresh(message)
    return rowcount(result) == 1


def mark_outbound_sent(session: Session, message: OutboundMessage, now: datetime) -> bool:
    """The relay accepted the message. Returns False if the claim was lost."""
    return _release_outbound(session, message, status=OUTBOUND_SENT, sent_at=now, last_error=None)


def retry_delay(
    attempts: int,
    base_delay: timedelta = DEFAULT_BASE_DELAY,
    max_delay: timedelta = DEFAULT_MAX_DELAY,
) -> timedelta:
    """Exponential backoff: base, 2 x base, 4 x base, ... capped at ``max_delay``."""
    delay: timedelta = base_delay * (2 ** max(attempts - 1, 0))
    return min(delay, max_delay)


def mark_outbound_failed(
    session: Session,
    message: OutboundMessage,
    error: str | BaseException,
    now: datetime,
    *,
    permanent: bool = False,
    base_delay: timedelta = DEFAULT_BASE_DELAY,
    max_delay: timedelta = DEFAULT_MAX_DELAY,
) -> bool:
    """Record a failed delivery. ``permanent`` (a 5xx answer): status failed, no retry.
    Otherwise (4xx, connection trouble) pending again after an exponential backoff, or dead
    after MAX_OUTBOUND_ATTEMPTS. Returns False if the claim was lost."""
    if permanent:
        status, next_at = OUTBOUND_FAILED, now
    elif message.attempts >= MAX_OUTBOUND_ATTEMPTS:
        status, next_at = OUTBOUND_DEAD, now
    else:
        status = OUTBOUND_PENDING
        next_at = now + retry_delay(message.attempts, base_delay, max_delay)
    return _release_outbound(
        session, message, status=status, next_attempt_at=next_at, last_error=_error_text(error)
    )


def requeue_outbound(session: Session, message_id: int, now: datetime) -> bool:
    """Send an outbound message again (typically failed or dead), due now, fresh attempts.
    Returns False if there is no such message or it is being sent."""
    result = session.execute(
        update(OutboundMessage)
        .where(OutboundMessage.id == message_id, OutboundMessage.status != OUTBOUND_SENDING)
        .values(
            status=OUTBOUND_PENDING,
            attempts=0,
            next_attempt_at=now,
            claimed_by=None,
            claimed_at=None,
        )
        .execution_options(synchronize_session=False)
    )
    return rowcount(result) == 1


def replies_sent_to(session: Session, recipient: str, since: datetime) -> int:
    """How many outbound messages were queued for ``recipient`` since ``since`` (for the
    per-address reply limit)."""
    # Recipients are stored lower-case (enqueue_outbound): a plain comparison uses the index.
    count = session.scalar(
        select(func.count())
        .select_from(OutboundMessage)
        .where(
            OutboundMessage.recipient == recipient.strip().lower(),
            OutboundMessage.created_at >= since,
        )
    )
    return int(count or 0)


__all__ = [
    "INBOUND_IGNORED",
    "MAX_INBOUND_ATTEMPTS",
    "MAX_OUTBOUND_ATTEMPTS",
    "claim_due_outbound",
    "claim_next_inbound",
    "enqueue_inbound",
    "enqueue_outbound",
    "mark_inbound_done",
    "mark_inbound_failed",
    "mark_outbound_failed",
    "mark_outbound_sent",
    "replies_sent_to",
    "requeue_inbound",
    "requeue_outbound",
    "retry_delay",
]
