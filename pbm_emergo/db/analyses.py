"""The requests for the engine's analysis of a finished board (``emergo analyse``).

A request waits ``queued`` until the robots' runner has analysed the board; the board's
analysis is stored with the request that made it (:func:`stored_report`), and the other
requests for the same board then waiting are answered from it.

Functions take the caller's ``Session`` and open no transaction; writes re-check what was
read and raise :class:`~pbm_emergo.db.errors.Conflict` when it changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import ANALYSIS_DONE, ANALYSIS_QUEUED, AnalysisRequest
from pbm_emergo.db.session import rowcount

__all__ = [
    "Queued",
    "add_request",
    "finish",
    "queued",
    "requests_since",
    "stored_report",
]


@dataclass(frozen=True)
class Queued:
    """A request waiting for its analysis."""

    id: int
    board_number: int
    player_id: int
    address: str
    requested_at: datetime


def stored_report(session: Session, board_number: int) -> dict[str, Any] | None:
    """The stored analysis of the board, None if it has none yet."""
    return session.scalars(
        select(AnalysisRequest.report)
        .where(AnalysisRequest.board_number == board_number, AnalysisRequest.report.is_not(None))
        .order_by(AnalysisRequest.id)
        .limit(1)
    ).first()


def queued(session: Session, board_number: int | None = None) -> list[Queued]:
    """The requests waiting (of one board, or all), oldest first."""
    query = select(
        AnalysisRequest.id, AnalysisRequest.board_number, AnalysisRequest.player_id,
        AnalysisRequest.address, AnalysisRequest.requested_at,
    ).where(AnalysisRequest.status == ANALYSIS_QUEUED)
    if board_number is not None:
        query = query.where(AnalysisRequest.board_number == board_number)
    rows = session.execute(query.order_by(AnalysisRequest.requested_at, AnalysisRequest.id))
    return [Queued(*row) for row in rows]


def requests_since(session: Session, player_id: int, since: datetime) -> int:
    """How many analyses the player asked for since ``since`` (the daily limit's count)."""
    return session.scalar(
        select(func.count()).select_from(AnalysisRequest).where(
            AnalysisRequest.player_id == player_id, AnalysisRequest.requested_at >= since
        )
    ) or 0


def add_request(
    session: Session, board_number: int, player_id: int, address: str, now: datetime,
    *, limit: int, since: datetime,
) -> None:
    """Queue a request, re-checking the daily limit and that the player has none waiting
    for the board (:class:`Conflict` if another mail got there first)."""
    if requests_since(session, player_id, since) >= limit:
        raise Conflict("The player's daily analyses were used meanwhile.")
    if any(q.player_id == player_id for q in queued(session, board_number)):
        raise Conflict("The analysis was requested meanwhile.")
    session.add(AnalysisRequest(
        board_number=board_number, player_id=player_id, address=address,
        requested_at=now, status=ANALYSIS_QUEUED,
    ))
    session.flush()


def finish(
    session: Session, request_id: int, report: dict[str, Any] | None, now: datetime
) -> None:
    """Mark the request done, with the board's analysis when it made it."""
    done = session.execute(
        update(AnalysisRequest)
        .where(AnalysisRequest.id == request_id, AnalysisRequest.status == ANALYSIS_QUEUED)
        .values(status=ANALYSIS_DONE, done_at=now, report=report)
    )
    if rowcount(done) != 1:
        raise Conflict("The analysis request was answered meanwhile.")
