"""The operator's figures read from the database: queue depths, the oldest waiting mail,
dead letters, active boards (``pbm-emergo admin stats`` and the scrape-time part of the
Prometheus metrics, :mod:`pbm_emergo.telemetry.metrics`).

:func:`queue_figures` is what a scrape runs: a few indexed queries over the unfinished rows
only (the ``(status, id)`` and ``(status, next_attempt_at)`` indexes), never a count of the
whole history, so that scraping every few seconds costs nothing however old the database.
:func:`totals` counts every row by status and is for ``admin stats`` alone.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

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


__all__ = ["QueueFigures", "Totals", "queue_figures", "totals"]
