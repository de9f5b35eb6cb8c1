"""What the robots' runner (:mod:`pbm_emergo.app.robots`) reads, as values: the active
boards with a robot on them, looked over before each answer (:func:`robot_boards`), one
board as a robot's task reads it (:func:`task_board`), and a board's moves, which a
take-back request replays (:func:`moves_played`). Each is one statement of plain rows; no
object is made."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import BindParameter, Select, Table, bindparam, or_, select
from sqlalchemy.orm import Session

from pbm_emergo.db import games
from pbm_emergo.db.games import REPETITION_SEPARATOR
from pbm_emergo.db.models import BOARD_ACTIVE, Board, Vote
from pbm_emergo.game.board import OpenVote, PlayedMove

_BOARDS = cast(Table, Board.__table__)
_VOTES = cast(Table, Vote.__table__)


@dataclass(frozen=True)
class RobotBoard:
    """An active board with a robot on it, as the robots' runner looks over them before
    each answer: its seats, whose turn, its open votes and since when it is idle, without
    its position, so that looking over every such board is cheap."""

    number: int
    ply: int
    white_player_id: int
    black_player_id: int
    to_move: str | None
    idle_since: datetime
    voters: frozenset[int]  # the players with an open vote on the board


# The active boards on which any of the ids plays, a row a vote of each (voter NULL for a
# board with none), by number.
_IDS: BindParameter[int] = bindparam("ids", expanding=True)
_ROBOT_BOARDS: Select[Any] = (
    select(
        _BOARDS.c.number, _BOARDS.c.ply, _BOARDS.c.white_player_id,
        _BOARDS.c.black_player_id, _BOARDS.c.to_move, _BOARDS.c.last_move_at,
        _BOARDS.c.created_at, _VOTES.c.player_id.label("voter"),
    )
    .outerjoin(_VOTES, _VOTES.c.board_number == _BOARDS.c.number)
    .where(
        _BOARDS.c.status == BOARD_ACTIVE,
        or_(
            _BOARDS.c.white_player_id.in_(_IDS), _BOARDS.c.black_player_id.in_(_IDS)
        ),
    )
    .order_by(_BOARDS.c.number)
)


def robot_boards(session: Session, robot_ids: Iterable[int]) -> list[RobotBoard]:
    """The active boards on which any of ``robot_ids`` plays, by number."""
    ids = list(robot_ids)
    if not ids:
        return []
    rows: dict[int, Any] = {}
    voters: dict[int, set[int]] = {}
    for row in session.execute(_ROBOT_BOARDS, {"ids": ids}):
        rows.setdefault(row.number, row)
        found = voters.setdefault(row.number, set())
        if row.voter is not None:
            found.add(row.voter)
    return [
        RobotBoard(
            number=row.number, ply=row.ply, white_player_id=row.white_player_id,
            black_player_id=row.black_player_id, to_move=row.to_move,
            idle_since=row.last_move_at or row.created_at,
            voters=frozenset(voters[number]),
        )
        for number, row in rows.items()
    ]


@dataclass(frozen=True)
class TaskBoard:
    """A board as a robot's task reads it: where its game stands and its open votes,
    without its players' rows or its moves."""

    number: int
    status: str
    ply: int
    white_player_id: int
    black_player_id: int
    to_move: str | None
    position: str  # Position.to_text()
    repetition: tuple[str, ...]  # the repetition keys (Game.repetition_history)
    blocked_rule: str
    votes: tuple[OpenVote, ...]  # by kind


# The board, a row a vote of it (the vote's columns NULL when it has none), votes by kind.
_TASK_BOARD: Select[Any] = (
    select(
        _BOARDS.c.number, _BOARDS.c.status, _BOARDS.c.ply, _BOARDS.c.white_player_id,
        _BOARDS.c.black_player_id, _BOARDS.c.to_move, _BOARDS.c.position,
        _BOARDS.c.repetition, _BOARDS.c.blocked_rule,
        _VOTES.c.kind.label("vote_kind"), _VOTES.c.player_id.label("vote_player_id"),
        _VOTES.c.ply.label("vote_ply"),
    )
    .outerjoin(_VOTES, _VOTES.c.board_number == _BOARDS.c.number)
    .where(_BOARDS.c.number == bindparam("number"))
    .order_by(_VOTES.c.kind)
)


def task_board(session: Session, number: int) -> TaskBoard | None:
    """Board ``number`` as a robot's task reads it, with its open votes; None if there is
    no such board."""
    rows = session.execute(_TASK_BOARD, {"number": number}).all()
    if not rows:
        return None
    row = rows[0]
    return TaskBoard(
        number=row.number, status=row.status, ply=row.ply,
        white_player_id=row.white_player_id, black_player_id=row.black_player_id,
        to_move=row.to_move, position=row.position,
        repetition=(
            tuple(row.repetition.split(REPETITION_SEPARATOR)) if row.repetition else ()
        ),
        blocked_rule=row.blocked_rule,
        votes=tuple(
            OpenVote(each.vote_kind, each.vote_player_id, each.vote_ply)
            for each in rows
            if each.vote_kind is not None
        ),
    )


def moves_played(session: Session, number: int) -> tuple[PlayedMove, ...]:
    """The moves of board ``number``, in order."""
    return tuple(
        PlayedMove(row.number, row.player_id, row.notation, row.played_at, row.autoplayed)
        for row in games.played_moves(session, number)
    )


__all__ = [
    "RobotBoard",
    "TaskBoard",
    "moves_played",
    "robot_boards",
    "task_board",
]
