"""A board as the decisions read it: one :class:`~pbm_emergo.game.board.BoardSnapshot` per
operation, read by :func:`read_board` as values only (the board with the facts read beside
it, its players and their accounts, in one statement of plain rows, then its moves); and a
player as a request on no board reads them (:func:`read_player`). :func:`load_state` makes
the state of a board's row object, every query run (what the value reads are checked
against)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Row, Select, Table, bindparam, select
from sqlalchemy.orm import Session

from pbm_emergo.db import autoplay, games, ratings, vacations
from pbm_emergo.db.games import REPETITION_SEPARATOR, BoardFacts
from pbm_emergo.db.models import (
    BOARD_ACTIVE,
    BOARD_FINISHED,
    CLOSED_PASSWORD_HASH,
    Board,
    Player,
    PlayerAddress,
    closed_name,
)
from pbm_emergo.db.reads.accounts import Account, account_from
from pbm_emergo.game.accounts import userid_key
from pbm_emergo.game.board import (
    WHITE,
    BoardSnapshot,
    BoardState,
    OpenVote,
    PlayedMove,
    Seat,
    may_end_rated,
)
from pbm_emergo.game.ratings import GameRating

# A board's row: the object, or a plain row of the boards table (the same names).
BoardRow = Board | Row[Any]


def primary_address(player: Player) -> str | None:
    """Where the player's board mails go: their first registered address."""
    return player.addresses[0].address if player.addresses else None


def seat_of(player: Player) -> Seat:
    """The player as a board shows them and the decisions need them."""
    return _seat(player, primary_address(player))


def _seat(player: Player | _Labelled | Row[Any], address: str | None) -> Seat:
    """The seat of a player's row (the object, or its columns read as plain values) whose
    board mails go to ``address``."""
    closed = player.password_hash == CLOSED_PASSWORD_HASH
    return Seat(
        player.id, closed_name(player.userid) if closed else player.userid, player.rating,
        address, player.vacation_until, rated_games=player.rated_games,
        autoplay=player.autoplay, timezone=player.timezone, deviation=player.deviation,
        volatility=player.volatility, digest=player.digest_hour is not None,
        board_style=player.board_style,
        language=player.language,
    )


def load_state(session: Session, board: Board, facts: BoardFacts | None = None) -> BoardState:
    """The state of ``board`` as stored (its moves, votes and rating changes read;
    ``facts``: read with the board, they spare the queries that would find nothing). When
    its game may end rated soon, when its two players last finished a rated game against
    each other is read too (the rule of ``counts_for_rating``); a board a few moves old
    needs no such query."""
    return _state(
        session, board, seat_of(board.white_player), seat_of(board.black_player), facts
    )


def _state(
    session: Session, board: BoardRow, white_seat: Seat, black_seat: Seat,
    facts: BoardFacts | None,
) -> BoardState:
    """:func:`load_state` of the board's row with its two seats."""
    rating = None
    if board.status == BOARD_FINISHED and board.rated:
        history = ratings.history_of_board(session, board.number)
        white = history.get(board.white_player_id)
        black = history.get(board.black_player_id)
        if white is not None and black is not None:
            rating = GameRating(
                white.rating_before,
                black.rating_before,
                white.rating_after - white.rating_before,
                black.rating_after - black.rating_before,
            )
    away: list[tuple[int, datetime, datetime]] = []
    # The vacations count on a board with a total thinking time, and for the deadlines of
    # the turn under way when a player's vacation reached into it.
    turn_began = board.last_move_at or board.created_at
    if (
        board.total_days is not None
        or board.timebank_hours is not None
        or any(
            p.vacation_until is not None and p.vacation_until > turn_began
            for p in (white_seat, black_seat)
        )
    ):
        periods = vacations.periods_of(
            session, (board.white_player_id, board.black_player_id), board.created_at
        )
        away = [(pid, s, e) for pid, spans in periods.items() for s, e in spans]
    pair_rated_at = None
    if board.status == BOARD_ACTIVE and may_end_rated(
        board.rated, board.ply, board.queued, white_seat.autoplay or black_seat.autoplay
    ):
        pair_rated_at = (
            games.pair_rated_at(session, white_seat.id, black_seat.id)
            if facts is None
            else facts.pair_rated_at
        )
    return BoardState(
        number=board.number,
        white=white_seat,
        black=black_seat,
        rated=board.rated,
        blocked_rule=board.blocked_rule,
        nag_days=board.nag_days,
        forfeit_days=board.forfeit_days,
        created_at=board.created_at,
        status=board.status,
        ply=board.ply,
        to_move=board.to_move,
        winner=board.winner,
        outcome_reason=board.outcome_reason,
        position=games.current_position(board),
        moves=tuple(
            PlayedMove(r.number, r.player_id, r.notation, r.played_at, r.autoplayed)
            for r in games.played_moves(session, board.number)
        ),
        votes=(
            tuple(
                OpenVote(v.kind, v.player_id, v.ply)
                for v in games.open_votes(session, board.number)
            )
            if facts is None or facts.votes
            else ()
        ),
        rating=rating,
        total_days=board.total_days,
        vacations=tuple(away),
        watched=facts is None or facts.watched,
        pair_rated_at=pair_rated_at,
        in_event=board.event_id is not None,
        last_reminder_at=board.last_reminder_at,
        timebank_hours=board.timebank_hours,
        increment_hours=board.increment_hours,
        weekends_off=board.weekends_off,
        finished_at=board.finished_at,
        # What each result would do to the ratings (the decisions are pure: the rating
        # model's results come to them as values).
        rating_outcomes=(
            ratings.outcomes(white_seat, black_seat)
            if board.status == BOARD_ACTIVE and board.rated
            else ()
        ),
    )


def _snapshot(
    session: Session, board: BoardRow, state: BoardState, with_queue: bool
) -> BoardSnapshot:
    queue = (
        tuple(autoplay.queue_of(session, board.number)) if with_queue and board.queued else ()
    )
    return BoardSnapshot(
        state=state,
        repetition=(
            tuple(board.repetition.split(REPETITION_SEPARATOR)) if board.repetition else None
        ),
        queued=board.queued,
        queue=queue,
    )


@dataclass(frozen=True)
class BoardRead:
    """A board read as values for a move: its snapshot (with its queued moves), the facts
    read beside it, and its two players' accounts (white, black) for the login."""

    snapshot: BoardSnapshot
    facts: BoardFacts
    accounts: tuple[Account, Account]

    @property
    def userids(self) -> tuple[str, str]:
        """The userids of its players (white, black), as stored."""
        return self.accounts[0].userid, self.accounts[1].userid

    def account_of(self, side: str) -> Account:
        """The account of the player of ``side`` (``white`` / ``black``)."""
        return self.accounts[0] if side == WHITE else self.accounts[1]


_BOARDS = cast(Table, Board.__table__)
_PLAYERS = cast(Table, Player.__table__)
_ADDRESSES = cast(Table, PlayerAddress.__table__)
_WHITE, _BLACK = _PLAYERS.alias("white"), _PLAYERS.alias("black")
# The columns the snapshot is made of (a board row's), and its seats and accounts (a
# player row's): only those, as a row this wide costs by its width.
_BOARD_FIELDS = (
    "number", "white_player_id", "black_player_id", "rated", "blocked_rule", "nag_days",
    "forfeit_days", "total_days", "status", "created_at", "finished_at", "last_move_at",
    "last_reminder_at", "ply", "position", "repetition", "to_move", "winner", "outcome_reason",
    "queued", "event_id", "timebank_hours", "increment_hours", "weekends_off",
)
_PLAYER_FIELDS = (
    "id", "userid", "userid_key", "password_hash", "language", "signed_off_at", "rating",
    "vacation_until", "rated_games", "autoplay", "timezone", "deviation", "volatility",
    "digest_hour", "board_style",
)
def with_players(*columns: Any) -> Select[Any]:
    """A statement of ``columns`` of the boards table, then its two players' columns
    (labelled white_... and black_...) and their addresses: a row an address of either
    (the board's and the players' columns repeated; a row of NULL addresses when neither
    has one). What :func:`read_board` and the scheduler's read of its boards share."""
    return (
        select(
            *columns,
            *(_WHITE.c[name].label(f"white_{name}") for name in _PLAYER_FIELDS),
            *(_BLACK.c[name].label(f"black_{name}") for name in _PLAYER_FIELDS),
            _ADDRESSES.c.player_id.label("address_of"),
            _ADDRESSES.c.address,
            _ADDRESSES.c.address_key,
        )
        .join(_WHITE, _WHITE.c.id == _BOARDS.c.white_player_id)
        .join(_BLACK, _BLACK.c.id == _BOARDS.c.black_player_id)
        .outerjoin(
            _ADDRESSES,
            _ADDRESSES.c.player_id.in_((_BOARDS.c.white_player_id, _BOARDS.c.black_player_id)),
        )
    )


# One statement: the board, the facts, its two players and their addresses.
_BOARD_READ: Select[Any] = (
    with_players(*(_BOARDS.c[name] for name in _BOARD_FIELDS), *games.FACTS_COLUMNS)
    .where(_BOARDS.c.number == bindparam("number"))
    .order_by(_ADDRESSES.c.position, _ADDRESSES.c.id)
)
_FACTS = slice(len(_BOARD_FIELDS), len(_BOARD_FIELDS) + len(games.FACTS_COLUMNS))


class _Labelled:
    """The columns of a row labelled ``prefix`` + name, by their names (a player's row)."""

    def __init__(self, row: Row[Any], prefix: str) -> None:
        self._values = row._mapping
        self._prefix = prefix

    def __getattr__(self, name: str) -> Any:
        return self._values[self._prefix + name]


def read_board(session: Session, number: int) -> BoardRead | None:
    """Board ``number`` as :class:`BoardRead` values, or None if there is none: the board
    with its facts, its players and their addresses in one statement, then its moves (and
    what :func:`load_state` reads only when there is something to find), as plain rows: no
    object is made or kept in step."""
    # What the session holds unwritten (an earlier command of a mail run in its write
    # transaction) is written first, as a query through the session would (autoflush).
    session.flush()
    rows = session.connection().execute(_BOARD_READ, {"number": number}).all()
    if not rows:
        return None
    row = rows[0]
    facts = games.facts_from(row.white_player_id, row.black_player_id, row[_FACTS])
    seats, accounts = players_of(rows)
    state = _state(session, row, *seats, facts)
    return BoardRead(
        snapshot=_snapshot(session, row, state, with_queue=True), facts=facts, accounts=accounts
    )


def players_of(
    rows: Sequence[Row[Any]],
) -> tuple[tuple[Seat, Seat], tuple[Account, Account]]:
    """The seats and the accounts (white, black) of a board's rows of a
    :func:`with_players` statement (a row an address of either player, in order)."""
    row = rows[0]
    white_id, black_id = row.white_player_id, row.black_player_id
    addresses: dict[int, list[tuple[str, str]]] = {white_id: [], black_id: []}
    for each in rows:
        if each.address_of is not None:
            addresses[each.address_of].append((each.address, each.address_key))
    white, black = _Labelled(row, "white_"), _Labelled(row, "black_")
    white_addresses, black_addresses = addresses[white_id], addresses[black_id]
    return (
        (
            _seat(white, white_addresses[0][0] if white_addresses else None),
            _seat(black, black_addresses[0][0] if black_addresses else None),
        ),
        (account_from(white, white_addresses), account_from(black, black_addresses)),
    )


@dataclass(frozen=True)
class PlayerRead:
    """A player read as values: their account (the login, where mail reaches them), their
    seat at a board (a new board's), what they let challenges do, and their settings."""

    account: Account
    seat: Seat
    refuses_challenges: bool
    board_limit: int | None  # refused while they have this many active boards
    seeking: int  # games they seek (a challenge takes one off)
    digest_hour: int | None  # the hour of their daily digest (None: none)

    @property
    def id(self) -> int:
        return self.account.id

    @property
    def userid(self) -> str:
        """The userid as stored."""
        return self.account.userid

    @property
    def language(self) -> str | None:
        return self.account.language


# One statement: the player's columns (a seat's and an account's, and their challenge
# policy), a row an address (one row of NULL addresses when there is none).
_PLAYER_READ: Select[Any] = (
    select(
        *(_PLAYERS.c[name] for name in _PLAYER_FIELDS),
        _PLAYERS.c.refuses_challenges,
        _PLAYERS.c.board_limit,
        _PLAYERS.c.seeking,
        _PLAYERS.c.digest_hour,
        _ADDRESSES.c.address,
        _ADDRESSES.c.address_key,
    )
    .outerjoin(_ADDRESSES, _ADDRESSES.c.player_id == _PLAYERS.c.id)
    .where(_PLAYERS.c.userid_key == bindparam("key"))
    .order_by(_ADDRESSES.c.position, _ADDRESSES.c.id)
)


def read_player(session: Session, userid: str) -> PlayerRead | None:
    """The player with this userid (any letter case), signed off or not, as
    :class:`PlayerRead` values, or None: plain rows, no object made."""
    rows = session.execute(_PLAYER_READ, {"key": userid_key(userid)}).all()
    if not rows:
        return None
    row = rows[0]
    addresses = [(each.address, each.address_key) for each in rows if each.address is not None]
    return PlayerRead(
        account=account_from(row, addresses),
        seat=_seat(row, addresses[0][0] if addresses else None),
        refuses_challenges=row.refuses_challenges,
        board_limit=row.board_limit,
        seeking=row.seeking,
        digest_hour=row.digest_hour,
    )
