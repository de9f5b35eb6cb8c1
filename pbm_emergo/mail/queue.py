"""What the mail pipeline adds to the queues of :mod:`pbm_emergo.db.queues`.

Every function receives the session of the caller's unit of work and does not commit.

- :func:`claim_inbound`: like ``claim_next_inbound`` (attempts counted at claim time), but
  in arrival order *per board*: a mail is not claimed while an earlier mail about the same
  board is still pending or in hand, so several workers never reorder one board's moves.
- :func:`release_stale_claims`: a claim is ``host:pid:thread``; a claim whose process on
  this host is gone is released at once (so after a crash and restart the message in hand
  is retried without waiting for the lease), and any claim older than the lease too.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from pbm_emergo.db.models import (
    INBOUND_DEAD,
    INBOUND_PENDING,
    INBOUND_PROCESSING,
    OUTBOUND_PENDING,
    OUTBOUND_SENDING,
    InboundMessage,
    OutboundMessage,
)
from pbm_emergo.db.queues import DEFAULT_LEASE, MAX_INBOUND_ATTEMPTS

CLAIM_LEASE = DEFAULT_LEASE

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


# --- outbox ------------------------------------------------------------------------------


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


def release_stale_claims(
    session: Session,
    *,
    now: datetime,
    on_dead: Callable[[Session, InboundMessage], None] | None = None,
) -> tuple[int, int]:
    """Put back the claims of crashed processes; returns (inbound, outbound) released.

    A claim is stale when its process on this host no longer exists, or it is older than
    :data:`CLAIM_LEASE` (a process on another machine that died). ``on_dead`` is called for
    each inbound message dead-lettered here (its attempts used up).
    """
    inbound = 0
    for message in session.scalars(
        select(InboundMessage).where(InboundMessage.status == INBOUND_PROCESSING)
    ):
        if _claim_is_stale(message.claimed_by, message.claimed_at, now):
            message.claimed_by = None
            message.claimed_at = None
            message.last_error = "the worker stopped while processing this message"
            if message.attempts >= MAX_INBOUND_ATTEMPTS:
                message.status = INBOUND_DEAD
                message.processed_at = now
                if on_dead is not None:
                    on_dead(session, message)
            else:
                message.status = INBOUND_PENDING
            inbound += 1
    outbound = 0
    for out in session.scalars(
        select(OutboundMessage).where(OutboundMessage.status == OUTBOUND_SENDING)
    ):
        if _claim_is_stale(out.claimed_by, out.claimed_at, now):
            out.claimed_by = None
            out.claimed_at = None
            out.status = OUTBOUND_PENDING
            out.next_attempt_at = now
            outbound += 1
    session.flush()
    return inbound, outbound


__all__ = [
    "board_of_subject",
    "claim_inbound",
    "load_claimed_inbound",
    "next_outbound_due",
    "release_stale_claims",
    "worker_name",
]
