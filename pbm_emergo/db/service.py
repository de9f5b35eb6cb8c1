"""The service layer for players, boards and moves.

Every function takes the caller's ``Session`` and a ``now`` (aware UTC datetime) where time
matters; none opens or commits a transaction. A unit of work looks like::

    with get_sessionmaker(config).begin() as session:
        board = get_board(session, 101)
        apply_move(session, board, expected_ply=16, move_text="e4xc4", player=alice,
                   comment=None, now=utcnow())

The moves table is the source of truth for a game; ``boards.position`` caches
``Position.to_text()`` and ``boards.ply`` is the version that makes concurrent moves safe.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import CursorResult, Result, delete, or_, select, update
from sqlalchemy.orm import Session

from pbm_emergo.db.models import (
    BLOCKED_RULES,
    BOARD_ACTIVE,
    BOARD_COUNTER,
    BOARD_FINISHED,
    FIRST_BOARD_NUMBER,
    WHITE,
    Board,
    Counter,
    MoveRecord,
    Player,
    PlayerAddress,
    QueuedMove,
    RatingChange,
    Vote,
)
from pbm_emergo.rules import Game, Move, Outcome, Position
from pbm_emergo.rules.game import BlockedRule

START_RATING = 1600
PROVISIONAL_GAMES = 20
K_FACTOR = 32
K_FACTOR_PROVISIONAL = 64

# argon2id with the library's current recommended parameters (RFC 9106 low-memory profile).
_hasher = PasswordHasher()


class ServiceError(Exception):
    """A request the data does not allow; ``str(err)`` is a plain sentence for the reply."""


class UseridTakenError(ServiceError):
    pass


class BoardFinishedError(ServiceError):
    pass


class NotAPlayerError(ServiceError):
    pass


class NotYourTurnError(ServiceError):
    pass


class StaleMoveError(ServiceError):
    """The board moved on: the move was computed for ``expected_ply`` moves played, but the
    board has ``actual_ply`` (another move was committed first). Nothing was changed."""

    def __init__(self, board_number: int, expected_ply: int, actual_ply: int | None) -> None:
        self.board_number = board_number
        self.expected_ply = expected_ply
        self.actual_ply = actual_ply
        expected = f"move {actual_ply + 1}" if actual_ply is not None else "a later move"
        super().__init__(
            f"Board {board_number} has changed: your move would have been move "
            f"{expected_ply + 1}, but the next move is {expected}."
        )


# --- players ---------------------------------------------------------------------------


def userid_key(userid: str) -> str:
    """The case-insensitive key of a userid (what ``players.userid_key`` holds)."""
    return userid.strip().lower()


def address_key(address: str) -> str:
    """The case-insensitive key of a mail address (what ``player_addresses.address_key`` holds)."""
    return address.strip().lower()


def hash_password(password: str) -> str:
    """An argon2id hash of ``password`` (the only form in which a password is stored)."""
    return _hasher.hash(password)


def verify_password(player: Player, password: str) -> bool:
    """Whether ``password`` is the player's; upgrades the stored hash if its parameters aged."""
    try:
        _hasher.verify(player.password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
    if _hasher.check_needs_rehash(player.password_hash):
        player.password_hash = _hasher.hash(password)
    return True


def set_password(player: Player, password: str) -> None:
    player.password_hash = hash_password(password)


def create_player(
    session: Session,
    userid: str,
    password: str,
    addresses: Sequence[str],
    now: datetime,
) -> Player:
    """A new account. Raises UseridTakenError if the userid exists in any letter case.

    Validating the userid's form (length, characters, reserved words) is the command
    layer's job; this only stores it.
    """
    if find_player(session, userid) is not None:
        raise UseridTakenError(f"The userid {userid} is already taken.")
    player = Player(
        userid=userid.strip(),
        userid_key=userid_key(userid),
        password_hash=hash_password(password),
        created_at=now,
        rating=START_RATING,
        rated_games=0,
        won=0,
        lost=0,
        drawn=0,
        is_admin=False,
    )
    session.add(player)
    set_addresses(session, player, addresses, now)
    session.flush()
    return player


def set_addresses(
    session: Session, player: Player, addresses: Iterable[str], now: datetime
) -> None:
    """Replace the player's registered addresses (duplicates in any case are dropped)."""
    seen: set[str] = set()
    fresh: list[PlayerAddress] = []
    for address in addresses:
        key = address_key(address)
        if not key or key in seen:
            continue
        seen.add(key)
        fresh.append(
            PlayerAddress(
                address=address.strip(), address_key=key, position=len(fresh), created_at=now
            )
        )
    player.addresses.clear()
    session.flush()  # delete the old rows before inserting (unique player_id, address_key)
    player.addresses.extend(fresh)


def find_player(session: Session, userid: str) -> Player | None:
    """The player with this userid, in any letter case, or None."""
    return session.scalar(select(Player).where(Player.userid_key == userid_key(userid)))


def find_players_by_address(session: Session, address: str) -> list[Player]:
    """The players who registered ``address`` (any letter case), by userid."""
    stmt = (
        select(Player)
        .join(PlayerAddress)
        .where(PlayerAddress.address_key == address_key(address))
        .order_by(Player.userid_key)
    )
    return list(session.scalars(stmt))


def is_provisional(player: Player) -> bool:
    return player.rated_games < PROVISIONAL_GAMES


# --- boards ----------------------------------------------------------------------------


def next_board_number(session: Session) -> int:
    """Take the next board number (101, 102, ...). A number is never handed out again once
    committed, even if its board is deleted (a rolled-back transaction gives its number back,
    as that board never existed)."""
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


def create_board(
    session: Session,
    white: Player,
    black: Player,
    now: datetime,
    *,
    rated: bool = True,
    blocked_rule: str = "loss",
    nag_days: int = 7,
    forfeit_days: int = 28,
) -> Board:
    """A new active board with the next number; ``white`` (Ohs) moves first."""
    if white.id == black.id:
        raise ServiceError("A game needs two different players.")
    if blocked_rule not in BLOCKED_RULES:
        raise ValueError(f"blocked_rule must be one of {BLOCKED_RULES}, not {blocked_rule!r}")
    start = Position()
    board = Board(
        number=next_board_number(session),
        game="emergo",
        white_player=white,
        black_player=black,
        rated=rated,
        blocked_rule=blocked_rule,
        nag_days=nag_days,
        forfeit_days=forfeit_days,
        status=BOARD_ACTIVE,
        created_at=now,
        ply=start.ply,
        position=start.to_text(),
        to_move=start.to_move,
    )
    session.add(board)
    session.flush()
    return board


def get_board(session: Session, number: int) -> Board | None:
    return session.get(Board, number)


def boards_of(session: Session, player: Player, status: str | None = None) -> list[Board]:
    """The player's boards by number, optionally only those with ``status``."""
    stmt = select(Board).where(
        or_(Board.white_player_id == player.id, Board.black_player_id == player.id)
    )
    if status is not None:
        stmt = stmt.where(Board.status == status)
    return list(session.scalars(stmt.order_by(Board.number)))


def move_notations(session: Session, board: Board) -> list[str]:
    """The board's moves in canonical notation, in order (read fresh from the database)."""
    stmt = (
        select(MoveRecord.notation)
        .where(MoveRecord.board_number == board.number)
        .order_by(MoveRecord.number)
    )
    return list(session.scalars(stmt))


def load_game(session: Session, board: Board, upto: int | None = None) -> Game:
    """The board's Game, replayed from the moves table (``upto``: only the first n moves).

    Replay is the source of truth and gives the repetition history a Game needs; for the
    current position alone, :func:`current_position` reads the cache instead.
    """
    notations = move_notations(session, board)
    if upto is not None:
        notations = notations[: max(upto, 0)]
    return Game.from_moves(notations, blocked=_blocked(board))


def current_position(board: Board) -> Position:
    """The board's current position, from the cached ``boards.position``."""
    return Position.from_text(board.position)


def player_to_move(board: Board) -> Player | None:
    """Whose turn it is, or None when the game is over."""
    if board.status != BOARD_ACTIVE or board.to_move is None:
        return None
    return board.player_of(board.to_move)


@dataclass(frozen=True)
class AppliedMove:
    """What :func:`apply_move` did: the stored record, the canonical move, the game after it,
    and the outcome if the move ended the game (the board is then finished)."""

    record: MoveRecord
    move: Move
    game: Game
    outcome: Outcome | None


def apply_move(
    session: Session,
    board: Board,
    expected_ply: int,
    move_text: str,
    player: Player,
    comment: str | None,
    now: datetime,
    *,
    game: Game | None = None,
) -> AppliedMove:
    """Play ``move_text`` for ``player`` as move ``expected_ply + 1`` and store it.

    Raises StaleMoveError when the board no longer has ``expected_ply`` moves (checked
    again by a conditional ``UPDATE boards ... WHERE ply = :expected`` so that of two
    concurrent moves exactly one is stored); BoardFinishedError (also when the game ended
    since the board was read: the same UPDATE requires it active), NotAPlayerError,
    NotYourTurnError; and the rules errors (InvalidMoveError, IllegalMoveError,
    AmbiguousMoveError) unchanged. On any error nothing is written. If the move ends the
    game, the board is finished (see :func:`finish_board`).

    ``game``: the board's game as already replayed in this transaction, to save a second
    replay; the move is played on it.
    """
    if board.status != BOARD_ACTIVE:
        raise BoardFinishedError(f"Board {board.number} is finished: no more moves.")
    side = board.side_of(player)
    if side is None:
        raise NotAPlayerError(f"{player.userid} does not play on board {board.number}.")
    if game is None:
        game = load_game(session, board)
    actual_ply = len(game.moves)
    if actual_ply != expected_ply:
        raise StaleMoveError(board.number, expected_ply, actual_ply)
    if game.position.to_move != side:
        raise NotYourTurnError(
            f"It is not your turn on board {board.number}: "
            f"it is {board.player_of(game.position.to_move).userid}'s."
        )
    move = game.play(move_text)
    outcome = game.outcome()
    position = game.position
    result = session.execute(
        update(Board)
        # Active too: a resignation or forfeit committed since we read the board ends it.
        .where(
            Board.number == board.number,
            Board.ply == expected_ply,
            Board.status == BOARD_ACTIVE,
        )
        .values(
            ply=expected_ply + 1,
            position=position.to_text(),
            to_move=None if outcome else position.to_move,
            last_move_at=now,
        )
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        session.refresh(board)
        if board.status != BOARD_ACTIVE:
            raise BoardFinishedError(f"Board {board.number} is finished: no more moves.")
        raise StaleMoveError(board.number, expected_ply, None)
    session.expire(board, ["ply", "position", "to_move", "last_move_at"])
    record = MoveRecord(
        board_number=board.number,
        number=expected_ply + 1,
        player_id=player.id,
        notation=str(move),
        comment=comment,
        played_at=now,
    )
    session.add(record)
    session.flush()
    if outcome is not None:
        finish_board(session, board, outcome.winner, outcome.reason, now)
    return AppliedMove(record=record, move=move, game=game, outcome=outcome)


def elo_change(rating: int, opponent: int, score: float, k: int) -> int:
    """The Elo rating change for a player scoring ``score`` (1, 0.5, 0) against ``opponent``."""
    expected = 1 / (1 + 10 ** ((opponent - rating) / 400))
    return round(k * (score - expected))


def finish_board(
    session: Session,
    board: Board,
    winner: str | None,
    reason: str,
    now: datetime,
) -> None:
    """End the game: ``winner`` is "white", "black" or None (a draw), ``reason`` a few words
    ("eliminated", "resigned", "draw agreed", ...). Updates won/lost/drawn, and for a rated
    board the Elo ratings (K=32, 64 while provisional) with a rating_history line each.
    Open votes and queued moves of the board are dropped. Raises BoardFinishedError if the
    board was already finished (also when a concurrent transaction finished it first)."""
    result = session.execute(
        update(Board)
        .where(Board.number == board.number, Board.status == BOARD_ACTIVE)
        .values(
            status=BOARD_FINISHED,
            winner=winner,
            outcome_reason=reason,
            to_move=None,
            finished_at=now,
        )
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        session.expire(board)
        raise BoardFinishedError(f"Board {board.number} is already finished.")
    session.expire(board)
    session.execute(delete(Vote).where(Vote.board_number == board.number))
    session.execute(delete(QueuedMove).where(QueuedMove.board_number == board.number))

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
    if winner is None:
        white.drawn += 1
        black.drawn += 1
        white_score = 0.5
    elif winner == WHITE:
        white.won += 1
        black.lost += 1
        white_score = 1.0
    else:
        black.won += 1
        white.lost += 1
        white_score = 0.0
    if board.rated:
        k_white = K_FACTOR_PROVISIONAL if is_provisional(white) else K_FACTOR
        k_black = K_FACTOR_PROVISIONAL if is_provisional(black) else K_FACTOR
        white_change = elo_change(white.rating, black.rating, white_score, k_white)
        black_change = elo_change(black.rating, white.rating, 1 - white_score, k_black)
        for player, change in ((white, white_change), (black, black_change)):
            session.add(
                RatingChange(
                    player_id=player.id,
                    board_number=board.number,
                    rating_before=player.rating,
                    rating_after=player.rating + change,
                    created_at=now,
                )
            )
            player.rating += change
            player.rated_games += 1
        session.execute(
            update(Board)
            .where(Board.number == board.number)
            .values(white_rating_change=white_change, black_rating_change=black_change)
            .execution_options(synchronize_session=False)
        )
        session.expire(board)
    session.flush()


def _blocked(board: Board) -> BlockedRule:
    return "draw" if board.blocked_rule == "draw" else "loss"


def rowcount(result: Result[Any]) -> int:
    """Rows matched by an UPDATE or DELETE run through ``session.execute``."""
    return cast(CursorResult[Any], result).rowcount
