"""Read-only queries for the web view (``pbm-emergo web``): boards, players, standings and
results as the public may see them.

Each function takes the caller's ``Session`` (it opens no transaction and writes nothing)
and returns plain frozen rows. What a row holds is what a page may show: userids, never an
address, a password hash or anything else of a player's account.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, aliased

from pbm_emergo.db import ratings
from pbm_emergo.db.models import (
    BLACK,
    BOARD_ACTIVE,
    BOARD_FINISHED,
    WHITE,
    Board,
    MoveRecord,
    Player,
)
from pbm_emergo.db.players import userid_key


@dataclass(frozen=True)
class BoardLine:
    """A board in a list. ``to_move``: the userid whose turn it is (None once over);
    ``winner``: the winner's userid (None: a draw or not over); ``reason``: how it ended."""

    number: int
    white: str
    black: str
    status: str
    ply: int
    to_move: str | None
    winner: str | None
    reason: str | None
    rated: bool
    created_at: datetime
    last_move_at: datetime | None
    finished_at: datetime | None
    white_change: int | None  # rating points (a finished rated game)
    black_change: int | None

    @property
    def active(self) -> bool:
        return self.status == BOARD_ACTIVE

    @property
    def last_activity(self) -> datetime:
        return self.finished_at or self.last_move_at or self.created_at


@dataclass(frozen=True)
class MoveLine:
    number: int
    player: str  # userid
    notation: str
    comment: str | None
    played_at: datetime


@dataclass(frozen=True)
class PlayerLine:
    """A player as the public sees them: no address, nothing of the account."""

    userid: str
    rating: int
    provisional: bool
    rated_games: int
    won: int
    lost: int
    drawn: int
    active_boards: int
    created_at: datetime
    signed_off: bool


_WHITE = aliased(Player)
_BLACK = aliased(Player)
# A board with its players' userids, in one query (no lazy loads).
_BOARD_LINES = select(Board, _WHITE.userid, _BLACK.userid).join(
    _WHITE, Board.white_player_id == _WHITE.id
).join(_BLACK, Board.black_player_id == _BLACK.id)


def _line(board: Board, white: str, black: str) -> BoardLine:
    side_names = {WHITE: white, BLACK: black}
    return BoardLine(
        number=board.number,
        white=white,
        black=black,
        status=board.status,
        ply=board.ply,
        to_move=(
            side_names[board.to_move]
            if board.status == BOARD_ACTIVE and board.to_move in side_names
            else None
        ),
        winner=side_names.get(board.winner or ""),
        reason=board.outcome_reason,
        rated=board.rated,
        created_at=board.created_at,
        last_move_at=board.last_move_at,
        finished_at=board.finished_at,
        white_change=board.white_rating_change,
        black_change=board.black_rating_change,
    )


def active_boards(session: Session, *, limit: int = 100) -> list[BoardLine]:
    """The boards being played, the most recently moved first."""
    activity = func.coalesce(Board.last_move_at, Board.created_at)
    stmt = (
        _BOARD_LINES.where(Board.status == BOARD_ACTIVE)
        .order_by(activity.desc(), Board.number.desc())
        .limit(limit)
    )
    return [_line(*row) for row in session.execute(stmt)]


def finished_boards(session: Session, *, limit: int = 100, offset: int = 0) -> list[BoardLine]:
    """The finished games, the most recently finished first."""
    stmt = (
        _BOARD_LINES.where(Board.status == BOARD_FINISHED)
        .order_by(Board.finished_at.desc(), Board.number.desc())
        .limit(limit)
        .offset(offset)
    )
    return [_line(*row) for row in session.execute(stmt)]


def count_finished(session: Session) -> int:
    return int(
        session.scalar(select(func.count()).where(Board.status == BOARD_FINISHED)) or 0
    )


def board_line(session: Session, number: int) -> BoardLine | None:
    """Board ``number`` as a list shows it, or None if there is no such board."""
    row = session.execute(_BOARD_LINES.where(Board.number == number)).first()
    return None if row is None else _line(*row)


def board_moves(session: Session, number: int) -> list[MoveLine]:
    """The moves of board ``number`` in order, with who played them and their comments."""
    stmt = (
        select(MoveRecord, Player.userid)
        .join(Player, MoveRecord.player_id == Player.id)
        .where(MoveRecord.board_number == number)
        .order_by(MoveRecord.number)
    )
    return [
        MoveLine(m.number, userid, m.notation, m.comment, m.played_at)
        for m, userid in session.execute(stmt)
    ]


def _player_line(player: Player, active: int) -> PlayerLine:
    return PlayerLine(
        userid=player.userid,
        rating=player.rating,
        provisional=ratings.is_provisional(player),
        rated_games=player.rated_games,
        won=player.won,
        lost=player.lost,
        drawn=player.drawn,
        active_boards=active,
        created_at=player.created_at,
        signed_off=player.signed_off_at is not None,
    )


def _active_counts(session: Session) -> dict[int, int]:
    stmt = (
        select(Player.id, func.count(Board.number))
        .join(Board, or_(Board.white_player_id == Player.id, Board.black_player_id == Player.id))
        .where(Board.status == BOARD_ACTIVE)
        .group_by(Player.id)
    )
    return {player_id: int(count) for player_id, count in session.execute(stmt)}


def player(session: Session, userid: str) -> PlayerLine | None:
    """The player ``userid`` (any letter case), or None."""
    found = session.scalars(select(Player).where(Player.userid_key == userid_key(userid))).first()
    if found is None:
        return None
    return _player_line(found, _active_counts(session).get(found.id, 0))


def boards_of(session: Session, userid: str) -> list[BoardLine]:
    """The boards of the player ``userid``: active ones first, then by number, newest first."""
    key = userid_key(userid)
    stmt = _BOARD_LINES.where(or_(_WHITE.userid_key == key, _BLACK.userid_key == key)).order_by(
        (Board.status == BOARD_ACTIVE).desc(), Board.number.desc()
    )
    return [_line(*row) for row in session.execute(stmt)]


def standings(session: Session) -> list[PlayerLine]:
    """The rating table: every player who has not signed off, the highest rating first
    (players with no rated game last)."""
    active = _active_counts(session)
    stmt = (
        select(Player)
        .where(Player.signed_off_at.is_(None))
        .order_by((Player.rated_games > 0).desc(), Player.rating.desc(), Player.userid_key)
    )
    return [_player_line(p, active.get(p.id, 0)) for p in session.scalars(stmt)]


__all__ = [
    "BoardLine",
    "MoveLine",
    "PlayerLine",
    "active_boards",
    "board_line",
    "board_moves",
    "boards_of",
    "count_finished",
    "finished_boards",
    "player",
    "standings",
]
