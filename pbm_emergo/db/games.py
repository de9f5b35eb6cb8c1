"""Games: boards, their moves and their open votes (draw offers, undo requests).

A board row keeps the game's current position (``position``), the move count that versions
it (``ply``: a move is stored only by ``UPDATE boards ... WHERE ply = :expected``) and what
threefold repetition needs (``repetition``: the keys of the positions that can still recur).
So a move loads one board row and resumes the game from it; the moves table stays the
source of truth and is replayed only to look back (``show 101#7``, an undo).

A move reads its board, players and their addresses in one query, with facts beside them
(:class:`BoardFacts`: an open vote? a subscriber? wrong passwords counted?), so that the
queries for votes, subscribers and failure counts run only when they can find something;
then the board's moves. It writes the board (an UPDATE that re-checks what it read, "no
votes" included, instead of deleting votes that are not there) and the move.

Functions take the caller's ``Session`` and open no transaction. The writes re-check what a
command read before (the move count, the board still active, the board counter) and raise a
:class:`~pbm_emergo.db.errors.Conflict` when it changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BindParameter,
    Row,
    Table,
    bindparam,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased, joinedload, selectinload

from pbm_emergo.db import ratings
from pbm_emergo.db.errors import (
    BoardFinishedError,
    BoardNumberTaken,
    Conflict,
    ServiceError,
    StaleMoveError,
)
from pbm_emergo.db.models import (
    BLOCKED_RULES,
    BOARD_ACTIVE,
    BOARD_COUNTER,
    BOARD_FINISHED,
    DEFAULT_FORFEIT_DAYS,
    DEFAULT_NAG_DAYS,
    FIRST_BOARD_NUMBER,
    Base,
    Board,
    Counter,
    LoginFailure,
    MoveRecord,
    Player,
    QueuedMove,
    Subscription,
    Vote,
)
from pbm_emergo.db.session import rowcount
from pbm_emergo.rules import BlockedRule, Game, Position, Termination

REPETITION_SEPARATOR = "\n"

__all__ = [
    "FACTS_COLUMNS",
    "BoardFacts",
    "active_boards_against",
    "boards_of",
    "count_by_status",
    "create_board",
    "current_position",
    "drop_votes",
    "facts_from",
    "finish_board",
    "get_board",
    "last_board_number",
    "load_game",
    "move_notations",
    "move_records",
    "move_times",
    "next_board_number",
    "open_vote",
    "open_votes",
    "played_moves",
    "player_to_move",
    "remove_vote",
    "resume_game",
    "set_reminded",
    "store_move",
    "take_back",
    "votes_of",
]


# --- boards ----------------------------------------------------------------------------


def last_board_number(session: Session) -> int:
    """The last board number handed out (100 before the first board)."""
    value = session.scalar(select(Counter.value).where(Counter.name == BOARD_COUNTER))
    return FIRST_BOARD_NUMBER - 1 if value is None else value


def next_board_number(session: Session) -> int:
    """Take the next board number (101, 102, ...). A number is never handed out again once
    committed, even if its board is deleted (a rolled-back transaction gives its number back,
    as that board never existed). Taken in a transaction of its own, it is set aside for a
    board to come (a challenge that lost its number to another board:
    :mod:`pbm_emergo.mail.answering`), skipped if that board is not made after all."""
    # The UPDATE locks the counter row (PostgreSQL) or the database (SQLite) until commit,
    # so concurrent challenges get distinct numbers.
    result = session.execute(
        update(Counter).where(Counter.name == BOARD_COUNTER).values(value=Counter.value + 1)
    )
    if rowcount(result) == 0:
        # Only a database made without the migrations (model tests) lacks the row.
        session.add(Counter(name=BOARD_COUNTER, value=FIRST_BOARD_NUMBER))
        session.flush()
        return FIRST_BOARD_NUMBER
    value = session.scalar(select(Counter.value).where(Counter.name == BOARD_COUNTER))
    assert value is not None
    return value


def _take_board_number(session: Session, number: int) -> None:
    """Take exactly ``number`` (computed from :func:`last_board_number` read earlier), or
    Conflict when another board took it first."""
    result = session.execute(
        update(Counter)
        .where(Counter.name == BOARD_COUNTER, Counter.value == number - 1)
        .values(value=number)
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) == 1:
        return
    if number == FIRST_BOARD_NUMBER and (
        session.scalar(select(Counter.name).where(Counter.name == BOARD_COUNTER)) is None
    ):
        session.add(Counter(name=BOARD_COUNTER, value=FIRST_BOARD_NUMBER))
        session.flush()
        return
    raise BoardNumberTaken("Another board took that number meanwhile.")


def create_board(
    session: Session,
    white: Player | int,
    black: Player | int,
    now: datetime,
    *,
    rated: bool = True,
    blocked_rule: str = "loss",
    nag_days: int = DEFAULT_NAG_DAYS,
    forfeit_days: int = DEFAULT_FORFEIT_DAYS,
    total_days: int | None = None,
    number: int | None = None,
    reserved: bool = False,
    event_id: int | None = None,
    event_round: int | None = None,
    timebank_hours: int | None = None,
    increment_hours: int | None = None,
    weekends_off: bool = False,
) -> Board:
    """A new active board; ``white`` (Ohs) moves first. ``number``: the number a command
    announced (:class:`BoardNumberTaken` if it was taken meanwhile; ``reserved``: it was
    taken for this board beforehand, :func:`next_board_number`); else the next one."""
    white_id = white if isinstance(white, int) else white.id
    black_id = black if isinstance(black, int) else black.id
    if white_id == black_id:
        raise ServiceError("A game needs two different players.")
    if blocked_rule not in BLOCKED_RULES:
        raise ValueError(f"blocked_rule must be one of {BLOCKED_RULES}, not {blocked_rule!r}")
    if number is None:
        number = next_board_number(session)
    elif not reserved:
        _take_board_number(session, number)
    start = Position()
    board = Board(
        number=number,
        game="emergo",
        white_player_id=white_id,
        black_player_id=black_id,
        rated=rated,
        blocked_rule=blocked_rule,
        nag_days=nag_days,
        forfeit_days=forfeit_days,
        total_days=total_days,
        status=BOARD_ACTIVE,
        created_at=now,
        ply=start.ply,
        position=start.to_text(),
        repetition=repetition_text(Game(_blocked_rule(blocked_rule))),
        to_move=start.to_move,
        event_id=event_id,
        event_round=event_round,
        timebank_hours=timebank_hours,
        increment_hours=increment_hours,
        weekends_off=weekends_off,
    )
    session.add(board)
    session.flush()
    return board


# Built once (a move reads its board with it): the board, its players and their addresses
# in one query, fresh even if the session had the board already.
_BOARD_WITH_PLAYERS = (
    select(Board)
    .where(Board.number == bindparam("number"))
    .options(
        joinedload(Board.white_player).joinedload(Player.addresses),
        joinedload(Board.black_player).joinedload(Player.addresses),
    )
    .execution_options(populate_existing=True)
)


def get_board(session: Session, number: int) -> Board | None:
    """The board with its players and their addresses (one query, no lazy loads)."""
    board: Board | None = (
        session.execute(_BOARD_WITH_PLAYERS, {"number": number}).unique().scalar_one_or_none()
    )
    return board


@dataclass(frozen=True)
class BoardFacts:
    """What the read of a board found out beside it, so that the queries these facts stand
    for run only when they can find something (a move reads none of them, usually)."""

    votes: bool  # the board has an open vote (draw offer, undo request)
    watched: bool  # someone is subscribed to the board, or to every board
    failing: frozenset[int]  # the ids of its players who have wrong passwords counted
    # What :func:`pair_rated_at` says of the board's two players (read in the same query).
    pair_rated_at: datetime | None = None


def _pair_rated_at_of(board: type[Board]) -> Any:
    """:func:`pair_rated_at` of ``board``'s two players, as a column of a query of boards."""
    other = aliased(Board)
    return (
        select(func.max(other.finished_at))
        .where(
            other.status == BOARD_FINISHED,
            other.rated.is_(True),
            or_(
                (other.white_player_id == board.white_player_id)
                & (other.black_player_id == board.black_player_id),
                (other.white_player_id == board.black_player_id)
                & (other.black_player_id == board.white_player_id),
            ),
        )
        .scalar_subquery()
    )


# What a board's read finds out beside it (BoardFacts), as columns of the board's query:
# EXISTS columns, each an index lookup in the one statement; and when the two players last
# finished a rated game against each other, which a rated move near the end of a game needs.
FACTS_COLUMNS = (
    exists().where(Vote.board_number == Board.number),
    exists().where(
        or_(Subscription.board_number == Board.number, Subscription.board_number.is_(None))
    ),
    exists().where(LoginFailure.player_id == Board.white_player_id),
    exists().where(LoginFailure.player_id == Board.black_player_id),
    _pair_rated_at_of(Board),
)


def facts_from(white_id: int, black_id: int, values: Sequence[Any]) -> BoardFacts:
    """The facts of the board whose players are ``white_id`` and ``black_id``, from the
    values of :data:`FACTS_COLUMNS` read with it."""
    votes, watched, white_failing, black_failing, rated_at = values
    seats = ((white_id, white_failing), (black_id, black_failing))
    return BoardFacts(
        votes=bool(votes), watched=bool(watched),
        failing=frozenset(pid for pid, has in seats if has), pair_rated_at=rated_at,
    )


def boards_of(session: Session, player: Player, status: str | None = None) -> list[Board]:
    """The player's boards by number, optionally only those with ``status``."""
    stmt = select(Board).where(
        or_(Board.white_player_id == player.id, Board.black_player_id == player.id)
    )
    if status is not None:
        stmt = stmt.where(Board.status == status)
    stmt = stmt.options(
        selectinload(Board.white_player).selectinload(Player.addresses),
        selectinload(Board.black_player).selectinload(Player.addresses),
    )
    return list(session.scalars(stmt.order_by(Board.number)))


def active_boards_against(
    session: Session, player_id: int, opponent_ids: Iterable[int]
) -> list[int]:
    """The numbers of the active boards on which ``player_id`` plays one of
    ``opponent_ids``, in order."""
    ids = list(opponent_ids)
    if not ids:
        return []
    return list(session.scalars(
        select(Board.number)
        .where(
            Board.status == BOARD_ACTIVE,
            or_(
                (Board.white_player_id == player_id) & Board.black_player_id.in_(ids),
                (Board.black_player_id == player_id) & Board.white_player_id.in_(ids),
            ),
        )
        .order_by(Board.number)
    ))


def count_by_status(session: Session) -> dict[str, int]:
    """How many boards are active and finished."""
    rows = session.execute(select(Board.status, func.count()).group_by(Board.status)).all()
    return {status: int(count) for status, count in rows}


def player_to_move(board: Board) -> Player | None:
    """Whose turn it is, or None when the game is over."""
    if board.status != BOARD_ACTIVE or board.to_move is None:
        return None
    return board.player_of(board.to_move)


# --- the game of a board ---------------------------------------------------------------


def move_notations(session: Session, board: Board | int) -> list[str]:
    """The board's moves in canonical notation, in order (read fresh from the database)."""
    number = board if isinstance(board, int) else board.number
    stmt = (
        select(MoveRecord.notation)
        .where(MoveRecord.board_number == number)
        .order_by(MoveRecord.number)
    )
    return list(session.scalars(stmt))


# The statements of a move's reads and writes, built once: building one costs more than
# running it.
_NUMBER: BindParameter[int] = bindparam("number")
_MOVE_RECORDS = (
    select(MoveRecord).where(MoveRecord.board_number == _NUMBER).order_by(MoveRecord.number)
)
_VOTES = select(Vote).where(Vote.board_number == _NUMBER).order_by(Vote.kind)


def _table_of(model: type[Base]) -> Table:
    """The table of a mapped class, for Core statements."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


# The move's own statements are on the tables (Core): the ORM's handling of a statement
# costs more than running it, and plain rows are all a board mail needs. (The UPDATE keeps
# no Board object in step: each operation reads its board afresh.)
_BOARDS = _table_of(Board)
_MOVES_TABLE = _table_of(MoveRecord)
_VOTES_TABLE = _table_of(Vote)
_STORE_MOVE = (
    update(_BOARDS)
    # Active too: a resignation or forfeit committed since the board was read ends it.
    .where(
        _BOARDS.c.number == bindparam("board"),
        _BOARDS.c.ply == bindparam("expected_ply"),
        _BOARDS.c.status == BOARD_ACTIVE,
    )
    .values(
        ply=bindparam("new_ply"),
        position=bindparam("new_position"),
        repetition=bindparam("new_repetition"),
        to_move=bindparam("new_to_move"),
        last_move_at=bindparam("now"),
    )
)
# Re-checking boards.queued as the move read it: a queue stored meanwhile (by the player
# who is not to move) makes the move start over, so that it plays or clears it. And, when
# the move read no open vote, that there still is none: a vote stored meanwhile makes the
# move start over (so the move drops it, as it does the votes it read), and otherwise the
# move needs no DELETE of votes. The variants by (queued re-checked, no votes re-checked):
_QUEUED_AS_READ = _BOARDS.c.queued == bindparam("expected_queued")
_NO_VOTES = ~exists().where(_VOTES_TABLE.c.board_number == _BOARDS.c.number)
_STORE_MOVE_CHECKING = {
    (False, False): _STORE_MOVE,
    (True, False): _STORE_MOVE.where(_QUEUED_AS_READ),
    (False, True): _STORE_MOVE.where(_NO_VOTES),
    (True, True): _STORE_MOVE.where(_QUEUED_AS_READ, _NO_VOTES),
}


_INSERT_MOVE = insert(_MOVES_TABLE)
_PLAYED_MOVES = (
    select(
        _MOVES_TABLE.c.number,
        _MOVES_TABLE.c.player_id,
        _MOVES_TABLE.c.notation,
        _MOVES_TABLE.c.played_at,
        _MOVES_TABLE.c.autoplayed,
    )
    .where(_MOVES_TABLE.c.board_number == _NUMBER)
    .order_by(_MOVES_TABLE.c.number)
)
_OPEN_VOTES = (
    select(_VOTES_TABLE.c.kind, _VOTES_TABLE.c.player_id, _VOTES_TABLE.c.ply)
    .where(_VOTES_TABLE.c.board_number == _NUMBER)
    .order_by(_VOTES_TABLE.c.kind)
)


def move_times(
    session: Session, numbers: Iterable[int]
) -> dict[int, list[tuple[int, datetime]]]:
    """The moves of the boards ``numbers`` as (player id, when played), in order, in one
    query (what a total thinking time is counted from)."""
    wanted = list(numbers)
    moves: dict[int, list[tuple[int, datetime]]] = {n: [] for n in wanted}
    if wanted:
        rows = session.execute(
            select(MoveRecord.board_number, MoveRecord.player_id, MoveRecord.played_at)
            .where(MoveRecord.board_number.in_(wanted))
            .order_by(MoveRecord.board_number, MoveRecord.number)
        )
        for number, player_id, played_at in rows:
            moves[number].append((player_id, played_at))
    return moves


def move_records(session: Session, board: Board | int) -> list[MoveRecord]:
    number = board if isinstance(board, int) else board.number
    return list(session.scalars(_MOVE_RECORDS, {"number": number}))


def played_moves(session: Session, number: int) -> Sequence[Row[Any, Any, Any, Any, Any]]:
    """The board's moves in order, as rows of (number, player_id, notation, played_at,
    autoplayed)."""
    return session.connection().execute(_PLAYED_MOVES, {"number": number}).all()


def pair_rated_at(session: Session, one: int, other: int) -> datetime | None:
    """When players ``one`` and ``other`` last finished a game against each other that
    moved ratings (a finished board still marked rated), or None."""
    return session.scalar(
        select(func.max(Board.finished_at)).where(
            Board.status == BOARD_FINISHED,
            Board.rated.is_(True),
            or_(
                (Board.white_player_id == one) & (Board.black_player_id == other),
                (Board.white_player_id == other) & (Board.black_player_id == one),
            ),
        )
    )


def open_votes(session: Session, number: int) -> Sequence[Row[Any, Any, Any]]:
    """The board's open votes by kind, as rows of (kind, player_id, ply)."""
    return session.execute(_OPEN_VOTES, {"number": number}).all()


def load_game(session: Session, board: Board, upto: int | None = None) -> Game:
    """The board's Game, replayed from the moves table (``upto``: only the first n moves).

    For looking back (an old position, taking moves back); to go on playing,
    :func:`resume_game` starts from the stored position instead.
    """
    notations = move_notations(session, board)
    if upto is not None:
        notations = notations[: max(upto, 0)]
    return Game.from_moves(notations, blocked=_blocked(board))


def resume_game(session: Session, board: Board, position: Position | None = None) -> Game:
    """The board's game from its stored position and repetition keys, without replaying it
    (a board stored before the keys existed is replayed once). ``position``: the board's
    position already read from it (positions are immutable: it is not read again)."""
    if board.repetition:
        return Game.resume(
            position if position is not None else Position.from_text(board.position),
            board.repetition.split(REPETITION_SEPARATOR),
            blocked=_blocked(board),
        )
    return load_game(session, board)


def repetition_text(game: Game) -> str:
    return REPETITION_SEPARATOR.join(game.repetition_history())


def current_position(board: Board | Row[Any]) -> Position:
    """The board's current position, from the cached ``boards.position`` (the board's
    object, or a plain row of the boards table)."""
    return Position.from_text(board.position)


def store_move(
    session: Session,
    number: int,
    expected_ply: int,
    position: Position,
    repetition: Sequence[str],
    to_move: str | None,
    player_id: int,
    notation: str,
    comment: str | None,
    now: datetime,
    *,
    autoplayed: str | None = None,
    expected_queued: bool | None = None,
    expected_no_votes: bool = False,
) -> None:
    """Store the move played on the board at ``expected_ply`` moves as move
    ``expected_ply + 1``: the board's new ``position``, ``repetition`` keys and turn
    (``to_move``; None when the move ended the game), and the moves table row.
    StaleMoveError if another move came first, BoardFinishedError if the game ended
    meanwhile. Does not finish the board.

    ``autoplayed``: how the server played it for the player (``queued``, ``forced``).
    ``expected_queued``: ``boards.queued`` as read (StaleMoveError if it changed).
    ``expected_no_votes``: the move read no open vote (StaleMoveError if there is one now)."""
    check: dict[str, object] = {}
    if expected_queued is not None:
        check["expected_queued"] = expected_queued
    connection = session.connection()  # Core statements: not through the ORM's handling
    result = connection.execute(
        _STORE_MOVE_CHECKING[expected_queued is not None, expected_no_votes],
        {
            **check,
            "board": number,
            "expected_ply": expected_ply,
            "new_ply": expected_ply + 1,
            "new_position": position.to_text(),
            "new_repetition": REPETITION_SEPARATOR.join(repetition),
            "new_to_move": to_move,
            "now": now,
        },
    )
    if rowcount(result) != 1:
        status = session.scalar(select(Board.status).where(Board.number == number))
        if status != BOARD_ACTIVE:
            raise BoardFinishedError(f"Board {number} is finished: no more moves.")
        raise StaleMoveError(number, expected_ply, None)
    values = {
        "board_number": number,
        "number": expected_ply + 1,
        "player_id": player_id,
        "notation": notation,
        "comment": comment,
        "played_at": now,
        "autoplayed": autoplayed,
    }
    # A plain INSERT (no unit of work to flush, no object made).
    connection.execute(_INSERT_MOVE, values)


def take_back(
    session: Session, number: int, expected_ply: int, position: Position,
    repetition: Sequence[str],
) -> None:
    """Remove the moves after ``position`` (the board's game replayed up to the move before
    the first one taken back; ``repetition``: its keys); Conflict if the board moved on or
    ended meanwhile."""
    first = position.ply + 1
    result = session.execute(
        update(Board)
        .where(Board.number == number, Board.ply == expected_ply, Board.status == BOARD_ACTIVE)
        .values(
            ply=position.ply,
            position=position.to_text(),
            repetition=REPETITION_SEPARATOR.join(repetition),
            to_move=position.to_move,
            queued=False,
        )
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict(f"Board {number} has changed meanwhile; nothing was taken back.")
    session.execute(
        delete(MoveRecord).where(MoveRecord.board_number == number, MoveRecord.number >= first)
    )
    # Queued moves were meant for the position taken back.
    session.execute(delete(QueuedMove).where(QueuedMove.board_number == number))


def finish_board(
    session: Session,
    number: int,
    winner: str | None,
    termination: Termination | str,
    now: datetime,
    *,
    expected_rating: ratings.GameRating | None = None,
    rated: bool = True,
    expected_ply: int | None = None,
) -> ratings.GameRating | None:
    """End the game: ``winner`` is "white", "black" or None (a draw). Updates won/lost/drawn,
    and for a rated board the Elo ratings with a rating_history line each (``expected_rating``:
    the changes a reply announced; Conflict if they no longer hold). Open votes and queued
    moves of the board are dropped. ``rated`` False: the game did not count for rating
    (game/ratings.py, counts_for_rating): the board is stored as unrated. Raises
    BoardFinishedError if the board was already finished (also when a concurrent transaction
    finished it first); ``expected_ply``: the move count the caller read (StaleMoveError if
    another move came meanwhile)."""
    reason = Termination(termination)
    unrated: dict[str, object] = (
        {} if rated and reason is not Termination.VOIDED else {"rated": False}
    )
    at_ply = () if expected_ply is None else (Board.ply == expected_ply,)
    result = session.execute(
        update(Board)
        .where(Board.number == number, Board.status == BOARD_ACTIVE, *at_ply)
        .values(
            status=BOARD_FINISHED,
            winner=winner,
            outcome_reason=reason.value,
            to_move=None,
            finished_at=now,
            queued=False,
            **unrated,
        )
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        status = session.scalar(select(Board.status).where(Board.number == number))
        if expected_ply is not None and status == BOARD_ACTIVE:
            raise StaleMoveError(number, expected_ply, None)
        raise BoardFinishedError(f"Board {number} is already finished.")
    board = session.get(Board, number, populate_existing=True)
    assert board is not None
    session.execute(delete(Vote).where(Vote.board_number == number))
    session.execute(delete(QueuedMove).where(QueuedMove.board_number == number))
    # Lock both players' rows (PostgreSQL) so that two games ending at once for the same
    # player do not lose an update.
    players = {
        p.id: p
        for p in session.scalars(
            select(Player)
            .where(Player.id.in_([board.white_player_id, board.black_player_id]))
            .with_for_update()
            .execution_options(populate_existing=True)
        )
    }
    white, black = players[board.white_player_id], players[board.black_player_id]
    if reason is Termination.VOIDED:
        return None  # annulled: no result counted, no rating (the board is unrated)
    rating = ratings.record_result(
        session, number, white, black, winner, board.rated, now, expected=expected_rating
    )
    if rating is not None:
        board.white_rating_change = rating.white_change
        board.black_rating_change = rating.black_change
    session.flush()
    return rating


def set_reminded(
    session: Session, number: int, now: datetime, *, expected_ply: int | None = None,
    expected_last: datetime | None = None,
) -> None:
    """Note the reminder sent at ``now``; with ``expected_ply``, Conflict unless the board is
    still active at that move count (a move came meanwhile: the reminder is void) and its
    last reminder is still ``expected_last`` (another run reminded first)."""
    at_ply = () if expected_ply is None else (
        Board.ply == expected_ply,
        Board.status == BOARD_ACTIVE,
        Board.last_reminder_at.is_(None) if expected_last is None
        else Board.last_reminder_at == expected_last,
    )
    result = session.execute(
        update(Board)
        .where(Board.number == number, *at_ply)
        .values(last_reminder_at=now)
        .execution_options(synchronize_session=False)
    )
    if expected_ply is not None and rowcount(result) != 1:
        raise Conflict(f"Board {number} has changed meanwhile; no reminder was sent.")


# --- votes -----------------------------------------------------------------------------


def votes_of(session: Session, number: int) -> list[Vote]:
    """The board's open draw offer and undo request, by kind."""
    return list(session.scalars(_VOTES, {"number": number}))


def open_vote(
    session: Session, number: int, kind: str, player_id: int, ply: int, now: datetime
) -> None:
    """Record a draw offer or undo request; Conflict if one of that kind came first."""
    try:
        with session.begin_nested():
            session.add(
                Vote(board_number=number, kind=kind, player_id=player_id, ply=ply, created_at=now)
            )
    except IntegrityError:
        raise Conflict("Another vote was recorded meanwhile.") from None


def remove_vote(session: Session, number: int, kind: str, player_id: int) -> None:
    """Remove an answered vote; Conflict if it is gone already."""
    result = session.execute(
        delete(Vote).where(
            Vote.board_number == number, Vote.kind == kind, Vote.player_id == player_id
        )
    )
    if rowcount(result) != 1:
        raise Conflict("The vote was answered meanwhile.")


def drop_votes(session: Session, number: int, *, keep_draw_of: int | None = None) -> None:
    """Drop the board's votes: all of them, or all but ``keep_draw_of``'s draw offer (a
    player's own move does not withdraw their draw offer; it answers the opponent's "no")."""
    stmt = delete(Vote).where(Vote.board_number == number)
    if keep_draw_of is not None:
        stmt = stmt.where((Vote.kind == "undo") | (Vote.player_id != keep_draw_of))
    session.execute(stmt)


def _blocked(board: Board) -> BlockedRule:
    return _blocked_rule(board.blocked_rule)


def _blocked_rule(rule: str) -> BlockedRule:
    return "draw" if rule == "draw" else "loss"
