"""What the scheduler reads (:mod:`pbm_emergo.app.timers`), as values: the active boards whose
clocks it looks at, each with its two players' seats and accounts, in one statement of plain
rows (:func:`boards_to_check`); the state of such a board, read only for one that gets a
reminder or is lost on time (:func:`state_of`); and the vacations that ran out and whose
players were not told yet, in one statement too (:func:`ended_untold`). No object is made or
kept in step: the seats and the state are made of plain rows by the helpers of a move's read
(:func:`~pbm_emergo.db.reads.snapshot.read_board`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Row, Select, Table, bindparam, func, or_, select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import BOARD_ACTIVE, Board, Player, PlayerAddress, Vacation
from pbm_emergo.db.reads.accounts import FIRST_ADDRESS, Account
from pbm_emergo.db.reads.snapshot import _BOARD_FIELDS, _state, players_of, with_players
from pbm_emergo.game.board import WHITE, BoardState, Seat

# A vacation that ran out longer ago than this (before the scheduler ran, say the server was
# down) is not told of any more: the news would be old.
TELL_END_WITHIN = timedelta(days=7)


@dataclass(frozen=True)
class TimedBoard:
    """An active board as the scheduler reads it: its clock's terms and times, and its two
    players (white, black) as seats (as the board shows them: their vacation, time zone,
    language) and as accounts (their userids as stored, every registered address: the
    reminders and the lock-out are checked against them). ``row``: the board's columns as
    read, that :func:`state_of` makes its state of."""

    number: int
    ply: int
    to_move: str | None
    created_at: datetime
    last_move_at: datetime | None
    last_reminder_at: datetime | None
    nag_days: int
    forfeit_days: int
    total_days: int | None
    timebank_hours: int | None
    increment_hours: int | None
    weekends_off: bool
    seats: tuple[Seat, Seat]
    accounts: tuple[Account, Account]
    row: Row[Any]

    @property
    def white_id(self) -> int:
        return self.seats[0].id

    @property
    def black_id(self) -> int:
        return self.seats[1].id

    def seat_of(self, side: str) -> Seat:
        """The seat of the player of ``side`` (``white`` / ``black``)."""
        return self.seats[0] if side == WHITE else self.seats[1]

    def account_of(self, side: str) -> Account:
        """The account of the player of ``side`` (``white`` / ``black``)."""
        return self.accounts[0] if side == WHITE else self.accounts[1]


_BOARDS = cast(Table, Board.__table__)
_PLAYERS = cast(Table, Player.__table__)
_ADDRESSES = cast(Table, PlayerAddress.__table__)
_VACATIONS = cast(Table, Vacation.__table__)
# The columns a board's state is made of: the snapshot's but its repetition keys, which
# only a move reads (the row is repeated for each address of its players).
_TIMED_FIELDS = tuple(name for name in _BOARD_FIELDS if name != "repetition")
# One statement: the boards the scheduler looks at, their two players and their addresses
# (see with_players).
_BOARDS_TO_CHECK: Select[Any] = (
    with_players(*(_BOARDS.c[name] for name in _TIMED_FIELDS))
    .where(
        _BOARDS.c.status == BOARD_ACTIVE,
        or_(
            func.coalesce(_BOARDS.c.last_move_at, _BOARDS.c.created_at)
            <= bindparam("idle_before"),
            _BOARDS.c.total_days.is_not(None),
            _BOARDS.c.timebank_hours.is_not(None),
            _BOARDS.c.weekends_off.is_(True),
        ),
    )
    .order_by(_BOARDS.c.number, _ADDRESSES.c.position, _ADDRESSES.c.id)
)


def boards_to_check(session: Session, now: datetime) -> list[TimedBoard]:
    """The active boards the scheduler looks at, by number, as :class:`TimedBoard` values:
    nag and forfeit times are whole days (at least one), so a board that saw a move within
    the last day needs no look, unless it has a total thinking time, a time bank or
    ``-weekends``.

    A plain read, no row lock: every server and worker process runs the scheduler, and two
    runs that read a board at once both decide on it, but what they store re-checks the
    move count and the last reminder it was decided at, so only the first stores it
    (:class:`~pbm_emergo.game.changes.ReminderSent`,
    :class:`~pbm_emergo.game.changes.GameFinished`); a move is never kept waiting on a
    scheduler's read and render."""
    rows = session.execute(_BOARDS_TO_CHECK, {"idle_before": now - timedelta(days=1)}).all()
    by_board: dict[int, list[Row[Any]]] = {}
    for row in rows:
        by_board.setdefault(row.number, []).append(row)
    return [_timed_board(each) for each in by_board.values()]


def _timed_board(rows: list[Row[Any]]) -> TimedBoard:
    """The board of its rows (one an address of either player, in order)."""
    row = rows[0]
    seats, accounts = players_of(rows)
    return TimedBoard(
        number=row.number,
        ply=row.ply,
        to_move=row.to_move,
        created_at=row.created_at,
        last_move_at=row.last_move_at,
        last_reminder_at=row.last_reminder_at,
        nag_days=row.nag_days,
        forfeit_days=row.forfeit_days,
        total_days=row.total_days,
        timebank_hours=row.timebank_hours,
        increment_hours=row.increment_hours,
        weekends_off=row.weekends_off,
        seats=seats,
        accounts=accounts,
        row=row,
    )


def state_of(session: Session, board: TimedBoard) -> BoardState:
    """The state of ``board`` as stored, as :func:`~pbm_emergo.db.reads.snapshot.load_state`
    reads it (its moves, votes, and what else there is to find), its seats as read."""
    white, black = board.seats
    return _state(session, board.row, white, black, None)


@dataclass(frozen=True)
class EndedVacation:
    """A vacation that ran out and whose player was not told yet, with what telling them
    needs of the player."""

    id: int
    ends_at: datetime
    player_id: int
    userid: str
    language: str | None  # the language of the player's mail (None: not chosen)
    timezone: str
    vacation_until: datetime | None  # the end of the player's vacation now (maybe a newer one)
    address: str | None  # the player's first registered address (None: none)


# One statement: the vacations with their players' columns and first addresses.
_ENDED_UNTOLD: Select[Any] = (
    select(
        _VACATIONS.c.id,
        _VACATIONS.c.ends_at,
        _VACATIONS.c.player_id,
        _PLAYERS.c.userid,
        _PLAYERS.c.language,
        _PLAYERS.c.timezone,
        _PLAYERS.c.vacation_until,
        FIRST_ADDRESS.label("address"),
    )
    .join(_PLAYERS, _PLAYERS.c.id == _VACATIONS.c.player_id)
    .where(
        _VACATIONS.c.end_told.is_(False),
        _VACATIONS.c.ends_at <= bindparam("now"),
        _VACATIONS.c.ends_at > bindparam("told_since"),
    )
    .order_by(_VACATIONS.c.id)
)


def ended_untold(session: Session, now: datetime) -> list[EndedVacation]:
    """The vacations that ran out (by ``now``, within :data:`TELL_END_WITHIN`) and whose
    players were not told yet, by id, as :class:`EndedVacation` values."""
    rows = session.execute(_ENDED_UNTOLD, {"now": now, "told_since": now - TELL_END_WITHIN})
    return [
        EndedVacation(
            id=row.id,
            ends_at=row.ends_at,
            player_id=row.player_id,
            userid=row.userid,
            language=row.language,
            timezone=row.timezone,
            vacation_until=row.vacation_until,
            address=row.address,
        )
        for row in rows
    ]


__all__ = [
    "TELL_END_WITHIN",
    "EndedVacation",
    "TimedBoard",
    "boards_to_check",
    "ended_untold",
    "state_of",
]
