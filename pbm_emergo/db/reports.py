"""Read-only reports for the operator (``pbm-emergo admin``): boards, players, mail queues.

Each function takes the caller's ``Session`` (it opens no transaction and writes nothing)
and returns plain frozen rows, detached from the session: times are aware datetimes (UTC),
players are named by their userid. Formatting them (tables, JSON) is the caller's job; see
:mod:`pbm_emergo.cli.admin`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, defer, selectinload

from pbm_emergo.db import games, players, ratings
from pbm_emergo.db.models import (
    BOARD_ACTIVE,
    OTHER_SENDERS,
    Board,
    InboundMessage,
    LoginFailure,
    OutboundMessage,
    Player,
    RatingChange,
)
from pbm_emergo.rules import Position

Queue = Literal["inbound", "outbound"]
QUEUES: tuple[Queue, ...] = ("inbound", "outbound")
# What the labels of `admin mail` start with: in-12, out-7.
QUEUE_PREFIXES: dict[Queue, str] = {"inbound": "in-", "outbound": "out-"}

__all__ = [
    "QUEUES",
    "QUEUE_PREFIXES",
    "BoardOutcome",
    "BoardReport",
    "BoardRow",
    "LoginFailureRow",
    "MailRow",
    "MoveRow",
    "PlayerReport",
    "PlayerRow",
    "Queue",
    "RatingChanges",
    "RatingRow",
    "UnknownPlayerError",
    "board_report",
    "game_rows",
    "mail_rows",
    "message_queues",
    "message_status",
    "player_report",
    "player_rows",
]


class UnknownPlayerError(LookupError):
    """No player has this userid (in any letter case)."""

    def __init__(self, userid: str) -> None:
        super().__init__(f"no player {userid!r}")
        self.userid = userid


# --- boards ----------------------------------------------------------------------------


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


def _board_row(board: Board) -> BoardRow:
    to_move = games.player_to_move(board)
    outcome = None
    if board.outcome_reason is not None:
        winner = board.player_of(board.winner).userid if board.winner else None
        outcome = BoardOutcome(winner=winner, reason=board.outcome_reason)
    return BoardRow(
        number=board.number,
        white=board.white_player.userid,
        black=board.black_player.userid,
        status=board.status,
        move_count=board.ply,
        to_move=to_move.userid if to_move else None,
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
        return [_board_row(b) for b in games.boards_of(session, found, status)]
    stmt = select(Board).options(selectinload(Board.white_player), selectinload(Board.black_player))
    if status is not None:
        stmt = stmt.where(Board.status == status)
    return [_board_row(b) for b in session.scalars(stmt.order_by(Board.number))]


def board_report(session: Session, number: int) -> BoardReport | None:
    """Board ``number`` with its moves and position, or None if there is no such board."""
    board = games.get_board(session, number)
    if board is None:
        return None
    records = games.move_records(session, board)
    names = {
        board.white_player_id: board.white_player.userid,
        board.black_player_id: board.black_player.userid,
    }
    position = games.load_game(session, board).position
    rating_changes = None
    if board.white_rating_change is not None and board.black_rating_change is not None:
        rating_changes = RatingChanges(board.white_rating_change, board.black_rating_change)
    return BoardReport(
        board=_board_row(board),
        moves=tuple(
            MoveRow(
                number=r.number,
                player=names.get(r.player_id) or r.player.userid,
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


# --- players ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerRow:
    """One player as listed (never the password hash). ``active_boards``: boards being
    played; ``provisional``: the rating is (too few rated games)."""

    userid: str
    rating: int
    provisional: bool
    rated_games: int
    won: int
    lost: int
    drawn: int
    active_boards: int
    addresses: tuple[str, ...]
    created_at: datetime
    vacation_until: datetime | None
    signed_off_at: datetime | None
    is_admin: bool


@dataclass(frozen=True)
class RatingRow:
    """A line of a player's rating history (``board``: None if the board was deleted)."""

    board: int | None
    before: int
    after: int
    at: datetime


@dataclass(frozen=True)
class LoginFailureRow:
    """Wrong passwords: how many since ``window_start``, and the lock if there is one."""

    count: int
    window_start: datetime
    locked_until: datetime | None


@dataclass(frozen=True)
class PlayerReport:
    player: PlayerRow
    boards: tuple[BoardRow, ...]
    rating_history: tuple[RatingRow, ...]
    login_failures: LoginFailureRow | None


def _player_row(player: Player, active_boards: int) -> PlayerRow:
    return PlayerRow(
        userid=player.userid,
        rating=player.rating,
        provisional=ratings.is_provisional(player),
        rated_games=player.rated_games,
        won=player.won,
        lost=player.lost,
        drawn=player.drawn,
        active_boards=active_boards,
        addresses=tuple(a.address for a in player.addresses),
        created_at=player.created_at,
        vacation_until=player.vacation_until,
        signed_off_at=player.signed_off_at,
        is_admin=player.is_admin,
    )


def player_rows(session: Session) -> list[PlayerRow]:
    """Every player (signed off too), by userid in any letter case."""
    active: dict[int, int] = {
        player_id: count
        for player_id, count in session.execute(
            select(Player.id, func.count(Board.number))
            .join(
                Board,
                or_(Board.white_player_id == Player.id, Board.black_player_id == Player.id),
            )
            .where(Board.status == BOARD_ACTIVE)
            .group_by(Player.id)
        )
    }
    rows = session.scalars(
        select(Player).options(selectinload(Player.addresses)).order_by(Player.userid_key)
    )
    return [_player_row(p, active.get(p.id, 0)) for p in rows]


def _failures_row(failures: list[LoginFailure], registered: set[str]) -> LoginFailureRow | None:
    """The player's wrong passwords from every sender together: the rows count per
    registered address, and the other senders together in the OTHER_SENDERS row."""
    if not failures:
        return None
    locks = [f.locked_until for f in failures if f.locked_until is not None]
    return LoginFailureRow(
        count=sum(f.count for f in failures if f.sender_key in registered | {OTHER_SENDERS}),
        window_start=min(f.window_start for f in failures),
        locked_until=max(locks) if locks else None,
    )


def player_report(session: Session, userid: str) -> PlayerReport | None:
    """The player ``userid`` (any letter case) with their boards, rating history and wrong
    passwords, or None if there is no such player."""
    player = players.find_player(session, userid)
    if player is None:
        return None
    boards = [_board_row(b) for b in games.boards_of(session, player)]
    history = session.scalars(
        select(RatingChange).where(RatingChange.player_id == player.id).order_by(RatingChange.id)
    )
    failures = list(players.login_failures_of(session, player.id).values())
    return PlayerReport(
        player=_player_row(player, sum(b.status == BOARD_ACTIVE for b in boards)),
        boards=tuple(boards),
        rating_history=tuple(
            RatingRow(
                board=h.board_number, before=h.rating_before, after=h.rating_after, at=h.created_at
            )
            for h in history
        ),
        login_failures=_failures_row(failures, {a.address_key for a in player.addresses}),
    )


# --- mail ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MailRow:
    """A message of either queue. ``time``: received (inbound) or queued (outbound);
    ``address``: the envelope sender ("" for the null sender) or the recipient; ``size``:
    of the raw message, in bytes. ``next_attempt_at``, ``sent_at`` and ``inbound_id`` (the
    mail it answers) are for outbound messages only (None for inbound ones)."""

    queue: Queue
    id: int
    status: str
    attempts: int
    time: datetime
    address: str
    subject: str | None
    message_id: str | None
    board: int | None
    last_error: str | None
    claimed_by: str | None
    size: int
    next_attempt_at: datetime | None = None
    sent_at: datetime | None = None
    inbound_id: int | None = None

    @property
    def label(self) -> str:
        """How `admin mail` names it, and `admin requeue` takes it: in-12, out-7."""
        return f"{QUEUE_PREFIXES[self.queue]}{self.id}"


def mail_rows(
    session: Session,
    *,
    queues: Sequence[Queue] = QUEUES,
    status: str | None = None,
    limit: int = 100,
) -> list[MailRow]:
    """The newest ``limit`` messages of each of ``queues`` (only those with ``status`` if
    given), oldest first. The raw messages are not loaded, only their sizes."""
    rows: list[MailRow] = []
    if "inbound" in queues:
        stmt = (
            select(InboundMessage, func.length(InboundMessage.raw))
            .options(defer(InboundMessage.raw))
            .order_by(InboundMessage.id.desc())
            .limit(limit)
        )
        if status is not None:
            stmt = stmt.where(InboundMessage.status == status)
        for m, size in session.execute(stmt):
            rows.append(
                MailRow(
                    queue="inbound",
                    id=m.id,
                    status=m.status,
                    attempts=m.attempts,
                    time=m.received_at,
                    address=m.envelope_sender,
                    subject=m.subject,
                    message_id=m.message_id,
                    board=m.board_number,
                    last_error=m.last_error,
                    claimed_by=m.claimed_by,
                    size=size or 0,
                )
            )
    if "outbound" in queues:
        stmt2 = (
            select(OutboundMessage, func.length(OutboundMessage.raw))
            .options(defer(OutboundMessage.raw))
            .order_by(OutboundMessage.id.desc())
            .limit(limit)
        )
        if status is not None:
            stmt2 = stmt2.where(OutboundMessage.status == status)
        for o, size in session.execute(stmt2):
            rows.append(
                MailRow(
                    queue="outbound",
                    id=o.id,
                    status=o.status,
                    attempts=o.attempts,
                    time=o.created_at,
                    address=o.recipient,
                    subject=o.subject,
                    message_id=o.message_id,
                    board=o.board_number,
                    last_error=o.last_error,
                    claimed_by=o.claimed_by,
                    size=size or 0,
                    next_attempt_at=o.next_attempt_at,
                    sent_at=o.sent_at,
                    inbound_id=o.inbound_id,
                )
            )
    # Stable: messages of the same time keep the order above (inbound first, newest first).
    rows.sort(key=lambda row: row.time)
    return rows


def _model(queue: Queue) -> type[InboundMessage] | type[OutboundMessage]:
    return InboundMessage if queue == "inbound" else OutboundMessage


def message_queues(session: Session, number: int) -> list[Queue]:
    """The queues that hold a message with id ``number`` (none, one, or both)."""
    return [
        queue
        for queue in QUEUES
        if session.scalar(select(_model(queue).id).where(_model(queue).id == number)) is not None
    ]


def message_status(session: Session, queue: Queue, number: int) -> str | None:
    """The status of message ``number`` of ``queue``, or None if there is no such message."""
    model = _model(queue)
    return session.scalar(select(model.status).where(model.id == number))
