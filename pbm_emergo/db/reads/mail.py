"""The mail queues as read models: the operator's listing of messages (``pbm-emergo admin
mail``, and what ``admin requeue`` looks up), and the figures read from the database: queue
depths, the oldest waiting mail, dead letters, active boards (``pbm-emergo admin stats`` and
the scrape-time part of the Prometheus metrics, :mod:`pbm_emergo.telemetry.metrics`).

:func:`queue_figures` is what a scrape runs: a few indexed queries over the unfinished rows
only (the ``(status, id)`` and ``(status, next_attempt_at)`` indexes), never a count of the
whole history, so that scraping every few seconds costs nothing however old the database.
:func:`totals` counts every row by status and is for ``admin stats`` alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session, defer

from pbm_emergo.db.models import (
    BOARD_ACTIVE,
    INBOUND_DEAD,
    INBOUND_PENDING,
    INBOUND_PROCESSING,
    OUTBOUND_DEAD,
    OUTBOUND_PENDING,
    OUTBOUND_SENDING,
    Board,
    InboundMessage,
    OutboundMessage,
)

Queue = Literal["inbound", "outbound"]
QUEUES: tuple[Queue, ...] = ("inbound", "outbound")
# What the labels of `admin mail` start with: in-12, out-7.
QUEUE_PREFIXES: dict[Queue, str] = {"inbound": "in-", "outbound": "out-"}


@dataclass(frozen=True)
class MailRow:
    """A message of either queue. ``time``: received (inbound) or queued (outbound);
    ``address``: the envelope sender ("" for the null sender) or the recipient; ``size``:
    of the raw message, in bytes. ``next_attempt_at``, ``sent_at`` and ``inbound_id`` (the
    mail it answers) are for outbound messages only (None for inbound ones)."""

    queue: Queue
    id: int
    status: str
    attempts: int
    time: datetime
    address: str
    subject: str | None
    message_id: str | None
    board: int | None
    last_error: str | None
    claimed_by: str | None
    size: int
    next_attempt_at: datetime | None = None
    sent_at: datetime | None = None
    inbound_id: int | None = None

    @property
    def label(self) -> str:
        """How `admin mail` names it, and `admin requeue` takes it: in-12, out-7."""
        return f"{QUEUE_PREFIXES[self.queue]}{self.id}"


def mail_rows(
    session: Session,
    *,
    queues: Sequence[Queue] = QUEUES,
    status: str | None = None,
    limit: int = 100,
) -> list[MailRow]:
    """The newest ``limit`` messages of each of ``queues`` (only those with ``status`` if
    given), oldest first. The raw messages are not loaded, only their sizes."""
    rows: list[MailRow] = []
    if "inbound" in queues:
        stmt = (
            select(InboundMessage, func.length(InboundMessage.raw))
            .options(defer(InboundMessage.raw))
            .order_by(InboundMessage.id.desc())
            .limit(limit)
        )
        if status is not None:
            stmt = stmt.where(InboundMessage.status == status)
        for m, size in session.execute(stmt):
            rows.append(
                MailRow(
                    queue="inbound",
                    id=m.id,
                    status=m.status,
                    attempts=m.attempts,
                    time=m.received_at,
                    address=m.envelope_sender,
                    subject=m.subject,
                    message_id=m.message_id,
                    board=m.board_number,
                    last_error=m.last_error,
                    claimed_by=m.claimed_by,
                    size=size or 0,
                )
            )
    if "outbound" in queues:
        stmt2 = (
            select(OutboundMessage, func.length(OutboundMessage.raw))
            .options(defer(OutboundMessage.raw))
            .order_by(OutboundMessage.id.desc())
            .limit(limit)
        )
        if status is not None:
            stmt2 = stmt2.where(OutboundMessage.status == status)
        for o, size in session.execute(stmt2):
            rows.append(
                MailRow(
                    queue="outbound",
                    id=o.id,
                    status=o.status,
                    attempts=o.attempts,
                    time=o.created_at,
                    address=o.recipient,
                    subject=o.subject,
                    message_id=o.message_id,
                    board=o.board_number,
                    last_error=o.last_error,
                    claimed_by=o.claimed_by,
                    size=size or 0,
                    next_attempt_at=o.next_attempt_at,
                    sent_at=o.sent_at,
                    inbound_id=o.inbound_id,
                )
            )
    # Stable: messages of the same time keep the order above (inbound first, newest first).
    rows.sort(key=lambda row: row.time)
    return rows


@dataclass(frozen=True)
class MailPage:
    """One page of :func:`mail_page`: ``rows`` newest first, the ``first`` of them the
    ``first``-th newest (from 1), of ``total`` messages in all."""

    rows: list[MailRow]
    first: int
    total: int


def mail_page(
    session: Session,
    *,
    queues: Sequence[Queue] = QUEUES,
    status: str | None = None,
    page: int = 1,
    per_page: int = 20,
) -> MailPage:
    """Page ``page`` (from 1) of the messages of ``queues`` (only those with ``status`` if
    given), ``per_page`` to a page, newest first, and how many there are in all."""
    total = 0
    for queue in queues:
        model = _model(queue)
        count = select(func.count()).select_from(model)
        if status is not None:
            count = count.where(model.status == status)
        total += session.scalar(count) or 0
    start = (page - 1) * per_page
    # The newest start + per_page of each queue hold the newest start + per_page of both.
    newest = mail_rows(session, queues=queues, status=status, limit=start + per_page)
    newest.sort(key=lambda row: (row.time, row.queue == "outbound", row.id), reverse=True)
    return MailPage(newest[start : start + per_page], start + 1, total)


def _model(queue: Queue) -> type[InboundMessage] | type[OutboundMessage]:
    return InboundMessage if queue == "inbound" else OutboundMessage


def message_queues(session: Session, number: int) -> list[Queue]:
    """The queues that hold a message with id ``number`` (none, one, or both)."""
    return [
        queue
        for queue in QUEUES
        if session.scalar(select(_model(queue).id).where(_model(queue).id == number)) is not None
    ]


def message_status(session: Session, queue: Queue, number: int) -> str | None:
    """The status of message ``number`` of ``queue``, or None if there is no such message."""
    model = _model(queue)
    return session.scalar(select(model.status).where(model.id == number))


@dataclass(frozen=True)
class QueueFigures:
    """The live state of the queues (cheap: unfinished rows only)."""

    inbound_pending: int
    inbound_processing: int
    inbound_oldest_pending_age_seconds: float  # 0 when nothing waits
    inbound_dead: int
    outbound_pending: int  # due now or waiting for a retry
    outbound_retrying: int  # of those, the ones that failed at least once (4xx, no relay)
    outbound_sending: int
    outbound_oldest_pending_age_seconds: float  # since queued; 0 when nothing waits
    outbound_dead: int
    active_boards: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _age(oldest: datetime | None, now: datetime) -> float:
    return max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0


def queue_figures(session: Session, now: datetime) -> QueueFigures:
    """The queues as they are now (see the module docstring for the cost)."""
    inbound: dict[str, int] = {
        status: count
        for status, count in session.execute(
            select(InboundMessage.status, func.count())
            .where(InboundMessage.status.in_((INBOUND_PENDING, INBOUND_PROCESSING, INBOUND_DEAD)))
            .group_by(InboundMessage.status)
        )
    }
    # The oldest pending mail is the one with the lowest id (ids follow arrival).
    oldest_in = session.scalar(
        select(InboundMessage.received_at)
        .where(InboundMessage.status == INBOUND_PENDING)
        .order_by(InboundMessage.id)
        .limit(1)
    )
    outbound: dict[str, int] = {
        status: count
        for status, count in session.execute(
            select(OutboundMessage.status, func.count())
            .where(
                OutboundMessage.status.in_((OUTBOUND_PENDING, OUTBOUND_SENDING, OUTBOUND_DEAD))
            )
            .group_by(OutboundMessage.status)
        )
    }
    retrying, oldest_out = session.execute(
        select(
            func.count().filter(OutboundMessage.attempts > 0),
            func.min(OutboundMessage.created_at),
        ).where(OutboundMessage.status == OUTBOUND_PENDING)
    ).one()
    if isinstance(oldest_out, str):  # SQLite's min() of the stored text
        oldest_out = datetime.fromisoformat(oldest_out)
    if oldest_out is not None and oldest_out.tzinfo is None:
        oldest_out = oldest_out.replace(tzinfo=now.tzinfo)
    active = session.scalar(
        select(func.count()).select_from(Board).where(Board.status == BOARD_ACTIVE)
    )
    return QueueFigures(
        inbound_pending=int(inbound.get(INBOUND_PENDING, 0)),
        inbound_processing=int(inbound.get(INBOUND_PROCESSING, 0)),
        inbound_oldest_pending_age_seconds=_age(oldest_in, now),
        inbound_dead=int(inbound.get(INBOUND_DEAD, 0)),
        outbound_pending=int(outbound.get(OUTBOUND_PENDING, 0)),
        outbound_retrying=int(retrying or 0),
        outbound_sending=int(outbound.get(OUTBOUND_SENDING, 0)),
        outbound_oldest_pending_age_seconds=_age(oldest_out, now),
        outbound_dead=int(outbound.get(OUTBOUND_DEAD, 0)),
        active_boards=int(active or 0),
    )


@dataclass(frozen=True)
class Totals:
    """Every mail ever stored, by status; and the last hour's processing (for ``admin
    stats``: these count the whole tables)."""

    inbound: dict[str, int] = field(default_factory=dict)
    outbound: dict[str, int] = field(default_factory=dict)
    boards: dict[str, int] = field(default_factory=dict)
    processed_last_hour: int = 0
    # From receipt to processed, over the last hour's mails (queueing included), in ms.
    latency_ms_p50: float | None = None
    latency_ms_p99: float | None = None


def _percentile(ordered: list[float], p: float) -> float | None:
    if not ordered:
        return None
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(min(rank, len(ordered))) - 1]


def totals(session: Session, now: datetime) -> Totals:
    """Counts by status of every inbound and outbound mail and every board, and how long the
    mails processed in the last hour waited from receipt to done."""

    def by_status(column: Any) -> dict[str, int]:
        rows = session.execute(select(column, func.count()).group_by(column))
        return {str(status): int(count) for status, count in sorted(tuple(r) for r in rows)}

    since = now - timedelta(hours=1)
    waited = sorted(
        (processed - received).total_seconds() * 1000
        for received, processed in session.execute(
            select(InboundMessage.received_at, InboundMessage.processed_at).where(
                InboundMessage.processed_at >= since
            )
        )
        if processed is not None and received is not None
    )
    return Totals(
        inbound=by_status(InboundMessage.status),
        outbound=by_status(OutboundMessage.status),
        boards=by_status(Board.status),
        processed_last_hour=len(waited),
        latency_ms_p50=_percentile(waited, 50),
        latency_ms_p99=_percentile(waited, 99),
    )


__all__ = [
    "QUEUES",
    "QUEUE_PREFIXES",
    "MailPage",
    "MailRow",
    "Queue",
    "QueueFigures",
    "Totals",
    "mail_page",
    "mail_rows",
    "message_queues",
    "message_status",
    "queue_figures",
    "totals",
]
