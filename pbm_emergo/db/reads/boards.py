"""Boards as read models: a board in a list (``BoardLine``, what the public may see), its
moves, the boards being played, the one list of finished games, and the operator's view of
a board with its replayed position (``BoardReport``, ``pbm-emergo admin show``).

Each function takes the caller's ``Session`` (it opens no transaction and writes nothing)
and returns plain frozen rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, case, func, or_, select
from sqlalchemy.orm import Session, aliased, selectinload

from pbm_emergo.db import games, players
from pbm_emergo.db.models import (
    BLACK,
    BOARD_ACTIVE,
    BOARD_FINISHED,
    CLOSED_PASSWORD_HASH,
    WHITE,
    Board,
    MoveRecord,
    Player,
)
from pbm_emergo.db.players import userid_key
from pbm_emergo.game.numbers import HISTORY_LIMIT as HISTORY_LIMIT
from pbm_emergo.rules import Position


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


def _shown(player: type[Player]) -> ColumnElement[str]:
    """A player's userid as boards show it (``bob (closed)``: see ``Player.shown_userid``)."""
    return case(
        (player.password_hash == CLOSED_PASSWORD_HASH, player.userid + " (closed)"),
        else_=player.userid,
    )


_WHITE = aliased(Player)
_BLACK = aliased(Player)
# A board with its players' userids, in one query (no lazy loads).
_BOARD_LINES = select(Board, _shown(_WHITE), _shown(_BLACK)).join(
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


def active_boards(session: Session, *, limit: int = 100, offset: int = 0) -> list[BoardLine]:
    """The boards being played, the most recently moved first (at most ``limit``, after
    skipping ``offset``)."""
    activity = func.coalesce(Board.last_move_at, Board.created_at)
    stmt = (
        _BOARD_LINES.where(Board.status == BOARD_ACTIVE)
        .order_by(activity.desc(), Board.number.desc())
        .limit(limit)
        .offset(offset)
    )
    return [_line(*row) for row in session.execute(stmt)]


def finished_games(
    session: Session,
    player_ids: Iterable[int] | None = None,
    *,
    limit: int = 100,
    offset: int = 0,
) -> list[BoardLine]:
    """The finished games, the most recently finished first (at most ``limit``, after
    skipping ``offset``); with ``player_ids``, only the games of those players. The one list
    of results: the web's front page and /history, and ``emergo history``."""
    stmt = (
        _BOARD_LINES.where(Board.status == BOARD_FINISHED)
        .order_by(Board.finished_at.desc(), Board.number.desc())
        .limit(limit)
        .offset(offset)
    )
    if player_ids is not None:
        ids = list(player_ids)
        stmt = stmt.where(or_(Board.white_player_id.in_(ids), Board.black_player_id.in_(ids)))
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


def boards_of(session: Session, userid: str) -> list[BoardLine]:
    """The boards of the player ``userid``: active ones first, then by number, newest first."""
    key = userid_key(userid)
    stmt = _BOARD_LINES.where(or_(_WHITE.userid_key == key, _BLACK.userid_key == key)).order_by(
        (Board.status == BOARD_ACTIVE).desc(), Board.number.desc()
    )
    return [_line(*row) for row in session.execute(stmt)]


# A board with its players' userids as stored (a closed account's too): as a player's
# table of games (``emergo games``) names them.
_BOARD_ROWS = select(Board, _WHITE.userid, _BLACK.userid).join(
    _WHITE, Board.white_player_id == _WHITE.id
).join(_BLACK, Board.black_player_id == _BLACK.id)


def to_move(player_id: int) -> ColumnElement[bool]:
    """Whether the player ``player_id`` is the one to move on a board (of the boards
    table)."""
    return or_(
        and_(Board.to_move == WHITE, Board.white_player_id == player_id),
        and_(Board.to_move == BLACK, Board.black_player_id == player_id),
    )


def listed_boards(
    session: Session, which: str, *, player_id: int | None = None, limit: int | None = None
) -> list[BoardLine]:
    """The boards by number, their players named by their userids as stored: those of
    ``which`` kind (``all``; ``inactive``: finished; ``active``; ``next``: active with a
    player to move), of the player ``player_id`` (``next``: where it is their turn) or of
    everyone; at most ``limit`` (for everyone, ``next`` picks among the first ``limit``
    active boards)."""
    stmt = _BOARD_ROWS.order_by(Board.number)
    if which == "inactive":
        stmt = stmt.where(Board.status == BOARD_FINISHED)
    elif which != "all":
        stmt = stmt.where(Board.status == BOARD_ACTIVE)
    if player_id is not None:
        if which == "next":
            stmt = stmt.where(to_move(player_id))
        else:
            stmt = stmt.where(
                or_(Board.white_player_id == player_id, Board.black_player_id == player_id)
            )
    if limit is not None:
        stmt = stmt.limit(limit)
    lines = [_line(*row) for row in session.execute(stmt)]
    if which == "next" and player_id is None:
        lines = [line for line in lines if line.to_move]
    return lines


def active_board_numbers(session: Session, player_id: int) -> list[int]:
    """The numbers of the player's active boards, in order."""
    stmt = (
        select(Board.number)
        .where(
            Board.status == BOARD_ACTIVE,
            or_(Board.white_player_id == player_id, Board.black_player_id == player_id),
        )
        .order_by(Board.number)
    )
    return list(session.scalars(stmt))


# --- the operator's view (pbm-emergo admin games, show) --------------------------------


class UnknownPlayerError(LookupError):
    """No player has this userid (in any letter case)."""

    def __init__(self, userid: str) -> None:
        super().__init__(f"no player {userid!r}")
        self.userid = userid


@dataclass(frozen=True)
class BoardOutcome:
    """How a finished game ended: the winner's userid (None: a draw) and the reason as
    stored (``boards.outcome_reason``)."""

    winner: str | None
    reason: str


@dataclass(frozen=True)
class BoardRow:
    """One board as listed: ``move_count`` is the board's ply, ``to_move`` the userid whose
    turn it is (None once the game is over)."""

    number: int
    white: str
    black: str
    status: str
    move_count: int
    to_move: str | None
    outcome: BoardOutcome | None
    rated: bool
    created_at: datetime
    last_move_at: datetime | None


@dataclass(frozen=True)
class MoveRow:
    number: int
    player: str
    notation: str
    played_at: datetime
    comment: str | None


@dataclass(frozen=True)
class RatingChanges:
    """The rating changes a finished rated game made."""

    white: int
    black: int


@dataclass(frozen=True)
class BoardReport:
    """One board in full. ``position`` is replayed from the moves (the source of truth);
    ``cache_differs`` says that the board's cached position is not that one."""

    board: BoardRow
    moves: tuple[MoveRow, ...]
    position: Position
    cache_differs: bool
    blocked_rule: str
    nag_days: int
    forfeit_days: int
    finished_at: datetime | None
    rating_changes: RatingChanges | None


def board_row(board: Board) -> BoardRow:
    to_move = games.player_to_move(board)
    outcome = None
    if board.outcome_reason is not None:
        winner = board.player_of(board.winner).shown_userid if board.winner else None
        outcome = BoardOutcome(winner=winner, reason=board.outcome_reason)
    return BoardRow(
        number=board.number,
        white=board.white_player.shown_userid,
        black=board.black_player.shown_userid,
        status=board.status,
        move_count=board.ply,
        to_move=to_move.shown_userid if to_move else None,
        outcome=outcome,
        rated=board.rated,
        created_at=board.created_at,
        last_move_at=board.last_move_at,
    )


def game_rows(
    session: Session, *, status: str | None = None, player: str | None = None
) -> list[BoardRow]:
    """The boards by number, optionally only those with ``status`` and those ``player``
    (a userid, any letter case) plays on. UnknownPlayerError if there is no such player."""
    if player is not None:
        found = players.find_player(session, player)
        if found is None:
            raise UnknownPlayerError(player)
        return [board_row(b) for b in games.boards_of(session, found, status)]
    stmt = select(Board).options(selectinload(Board.white_player), selectinload(Board.black_player))
    if status is not None:
        stmt = stmt.where(Board.status == status)
    return [board_row(b) for b in session.scalars(stmt.order_by(Board.number))]


def board_report(session: Session, number: int) -> BoardReport | None:
    """Board ``number`` with its moves and position, or None if there is no such board."""
    board = games.get_board(session, number)
    if board is None:
        return None
    records = games.move_records(session, board)
    names = {
        board.white_player_id: board.white_player.shown_userid,
        board.black_player_id: board.black_player.shown_userid,
    }
    position = games.load_game(session, board).position
    rating_changes = None
    if board.white_rating_change is not None and board.black_rating_change is not None:
        rating_changes = RatingChanges(board.white_rating_change, board.black_rating_change)
    return BoardReport(
        board=board_row(board),
        moves=tuple(
            MoveRow(
                number=r.number,
                player=names.get(r.player_id) or r.player.shown_userid,
                notation=r.notation,
                played_at=r.played_at,
                comment=r.comment,
            )
            for r in records
        ),
        position=position,
        cache_differs=position.to_text() != board.position,
        blocked_rule=board.blocked_rule,
        nag_days=board.nag_days,
        forfeit_days=board.forfeit_days,
        finished_at=board.finished_at,
        rating_changes=rating_changes,
    )


__all__ = [
    "HISTORY_LIMIT",
    "BoardLine",
    "BoardOutcome",
    "BoardReport",
    "BoardRow",
    "MoveLine",
    "MoveRow",
    "RatingChanges",
    "UnknownPlayerError",
    "active_boards",
    "board_line",
    "board_moves",
    "board_report",
    "boards_of",
    "count_finished",
    "finished_games",
    "game_rows",
]
