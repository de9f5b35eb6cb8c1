"""Ratings and results for the mail commands: the rating table (``emergo standings``) and
the finished games (``emergo history``).

Functions take the caller's ``Session``, open no transaction, write nothing, and return
plain frozen rows. The Elo numbers themselves are kept by :mod:`pbm_emergo.db.ratings`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, aliased

from pbm_emergo.db import ratings
from pbm_emergo.db.models import (
    BLACK,
    BOARD_ACTIVE,
    BOARD_FINISHED,
    WHITE,
    Board,
    Player,
    RatingChange,
)

# A player with no rated game within this many days is listed as inactive.
INACTIVE_DAYS = 365
# `emergo history` lists at most this many games.
HISTORY_LIMIT = 100

ESTABLISHED = "established"
PROVISIONAL = "provisional"
INACTIVE = "inactive"
SECTIONS = (ESTABLISHED, PROVISIONAL, INACTIVE)

__all__ = [
    "ESTABLISHED",
    "HISTORY_LIMIT",
    "INACTIVE",
    "INACTIVE_DAYS",
    "PROVISIONAL",
    "SECTIONS",
    "HistoryRow",
    "StandingRow",
    "active_board_counts",
    "history",
    "standings",
]


@dataclass(frozen=True)
class StandingRow:
    """One line of the rating table. ``rank`` counts down the whole table (established
    players first, then provisional, then inactive); ``last_rated_at``: when the player's
    last rated game ended (None: never)."""

    rank: int
    userid: str
    rating: int
    rated_games: int
    won: int
    lost: int
    drawn: int
    active_boards: int
    seeking: int
    section: str
    last_rated_at: datetime | None


def active_board_counts(
    session: Session, player_ids: Iterable[int] | None = None
) -> dict[int, int]:
    """How many active boards each player has (players with none are left out)."""
    stmt = (
        select(Player.id, func.count(Board.number))
        .join(Board, or_(Board.white_player_id == Player.id, Board.black_player_id == Player.id))
        .where(Board.status == BOARD_ACTIVE)
        .group_by(Player.id)
    )
    if player_ids is not None:
        stmt = stmt.where(Player.id.in_(list(player_ids)))
    return {player_id: int(count) for player_id, count in session.execute(stmt)}


def _section(player: Player, last_rated: datetime | None, now: datetime) -> str:
    if last_rated is None or last_rated <= now - timedelta(days=INACTIVE_DAYS):
        return INACTIVE
    return PROVISIONAL if ratings.is_provisional(player) else ESTABLISHED


def standings(session: Session, now: datetime) -> list[StandingRow]:
    """The rating table of every player who has not signed off: established players,
    provisional players (fewer than 20 rated games), then those with no rated game in the
    last 365 days; the highest rating first within each."""
    last_rated: dict[int, datetime] = {
        player_id: at
        for player_id, at in session.execute(
            select(RatingChange.player_id, func.max(RatingChange.created_at)).group_by(
                RatingChange.player_id
            )
        )
    }
    active = active_board_counts(session)
    found = list(session.scalars(select(Player).where(Player.signed_off_at.is_(None))))
    sections = {p.id: _section(p, last_rated.get(p.id), now) for p in found}
    found.sort(key=lambda p: (SECTIONS.index(sections[p.id]), -p.rating, p.userid_key))
    return [
        StandingRow(
            rank=rank,
            userid=p.userid,
            rating=p.rating,
            rated_games=p.rated_games,
            won=p.won,
            lost=p.lost,
            drawn=p.drawn,
            active_boards=active.get(p.id, 0),
            seeking=p.seeking,
            section=sections[p.id],
            last_rated_at=last_rated.get(p.id),
        )
        for rank, p in enumerate(found, start=1)
    ]


@dataclass(frozen=True)
class HistoryRow:
    """A finished game: ``winner`` is the winner's userid (None: a draw), ``reason`` how it
    ended (``boards.outcome_reason``); the rating changes are None for an unrated game."""

    finished_at: datetime
    number: int
    white: str
    black: str
    winner: str | None
    reason: str
    rated: bool
    white_change: int | None
    black_change: int | None


_WHITE = aliased(Player)
_BLACK = aliased(Player)


def history(
    session: Session, player_ids: Iterable[int] | None = None, *, limit: int = HISTORY_LIMIT
) -> list[HistoryRow]:
    """The finished games, the most recently finished first (at most ``limit``); with
    ``player_ids``, only the games of those players."""
    stmt = (
        select(Board, _WHITE.userid, _BLACK.userid)
        .join(_WHITE, Board.white_player_id == _WHITE.id)
        .join(_BLACK, Board.black_player_id == _BLACK.id)
        .where(Board.status == BOARD_FINISHED)
        .order_by(Board.finished_at.desc(), Board.number.desc())
        .limit(limit)
    )
    if player_ids is not None:
        ids = list(player_ids)
        stmt = stmt.where(or_(Board.white_player_id.in_(ids), Board.black_player_id.in_(ids)))
    rows = []
    for board, white, black in session.execute(stmt):
        names = {WHITE: white, BLACK: black}
        rows.append(
            HistoryRow(
                finished_at=board.finished_at or board.created_at,
                number=board.number,
                white=white,
                black=black,
                winner=names.get(board.winner or ""),
                reason=board.outcome_reason or "",
                rated=board.rated,
                white_change=board.white_rating_change,
                black_change=board.black_rating_change,
            )
        )
    return rows
