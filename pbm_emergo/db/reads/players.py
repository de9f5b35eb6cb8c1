"""Players as read models: the one player row (``PlayerLine``, what the public may see),
the one count of active boards per player, and the operator's rows with the account
(``PlayerRow``, ``PlayerReport``: addresses, vacation, wrong passwords).

Each function takes the caller's ``Session`` (it opens no transaction and writes nothing)
and returns plain frozen rows. A ``PlayerLine`` holds userids and figures, never an address,
a password hash or anything else of a player's account.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, selectinload

from pbm_emergo.db import games, players, ratings
from pbm_emergo.db.models import (
    BOARD_ACTIVE,
    OTHER_SENDERS,
    Board,
    Player,
    RatingChange,
)
from pbm_emergo.db.players import LoginFailureRead, userid_key
from pbm_emergo.db.reads.boards import BoardRow, board_row


def active_board_counts(
    session: Session, player_ids: Iterable[int] | None = None
) -> dict[int, int]:
    """How many active boards each player has (players with none are left out): the one
    count behind the standings, the player pages, the seeks and ``admin players``."""
    stmt = (
        select(Player.id, func.count(Board.number))
        .join(Board, or_(Board.white_player_id == Player.id, Board.black_player_id == Player.id))
        .where(Board.status == BOARD_ACTIVE)
        .group_by(Player.id)
    )
    if player_ids is not None:
        stmt = stmt.where(Player.id.in_(list(player_ids)))
    return {player_id: int(count) for player_id, count in session.execute(stmt)}


@dataclass(frozen=True)
class PlayerLine:
    """A player as the public sees them: no address, nothing of the account.
    ``provisional``: the rating is (its deviation is still large)."""

    userid: str
    rating: int
    deviation: int  # the Glicko-2 rating deviation, rounded
    provisional: bool
    rated_games: int
    won: int
    lost: int
    drawn: int
    active_boards: int
    created_at: datetime
    signed_off: bool


def player_line(player: Player, active_boards: int) -> PlayerLine:
    """The one player row, built here for every page, mail and listing that shows one."""
    return PlayerLine(
        userid=player.userid,
        rating=player.rating,
        deviation=round(player.deviation),
        provisional=ratings.is_provisional(player),
        rated_games=player.rated_games,
        won=player.won,
        lost=player.lost,
        drawn=player.drawn,
        active_boards=active_boards,
        created_at=player.created_at,
        signed_off=player.signed_off_at is not None,
    )


def player(session: Session, userid: str) -> PlayerLine | None:
    """The player ``userid`` (any letter case), or None."""
    found = session.scalars(select(Player).where(Player.userid_key == userid_key(userid))).first()
    if found is None:
        return None
    return player_line(found, active_board_counts(session, [found.id]).get(found.id, 0))


@dataclass(frozen=True)
class PlayerRow(PlayerLine):
    """A player as the operator lists them: the public line and the account (never the
    password hash)."""

    addresses: tuple[str, ...]
    vacation_until: datetime | None
    signed_off_at: datetime | None
    is_admin: bool


def player_row(player: Player, active_boards: int) -> PlayerRow:
    return PlayerRow(
        **asdict(player_line(player, active_boards)),
        addresses=tuple(a.address for a in player.addresses),
        vacation_until=player.vacation_until,
        signed_off_at=player.signed_off_at,
        is_admin=player.is_admin,
    )


def player_rows(session: Session) -> list[PlayerRow]:
    """Every player (signed off too), by userid in any letter case."""
    active = active_board_counts(session)
    rows = session.scalars(
        select(Player).options(selectinload(Player.addresses)).order_by(Player.userid_key)
    )
    return [player_row(p, active.get(p.id, 0)) for p in rows]


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


def _failures_row(
    failures: list[LoginFailureRead], registered: set[str]
) -> LoginFailureRow | None:
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
    """The player ``userid`` (any letter case), or the one who registered that address
    (``userid`` holds an @), with their boards, rating history and wrong passwords, or None
    if there is no such player."""
    player = (
        players.find_player_by_address(session, userid)
        if "@" in userid
        else players.find_player(session, userid)
    )
    if player is None:
        return None
    boards = [board_row(b) for b in games.boards_of(session, player)]
    history = session.scalars(
        select(RatingChange).where(RatingChange.player_id == player.id).order_by(RatingChange.id)
    )
    failures = list(players.login_failures_of(session, player.id).values())
    return PlayerReport(
        player=player_row(player, sum(b.status == BOARD_ACTIVE for b in boards)),
        boards=tuple(boards),
        rating_history=tuple(
            RatingRow(
                board=h.board_number, before=h.rating_before, after=h.rating_after, at=h.created_at
            )
            for h in history
        ),
        login_failures=_failures_row(failures, {a.address_key for a in player.addresses}),
    )


def rating_history(session: Session, userid: str) -> tuple[RatingRow, ...]:
    """The rating history of the player ``userid`` (any letter case), oldest first."""
    found = session.scalars(
        select(RatingChange)
        .join(Player, Player.id == RatingChange.player_id)
        .where(Player.userid_key == userid_key(userid))
        .order_by(RatingChange.id)
    )
    return tuple(
        RatingRow(
            board=h.board_number, before=h.rating_before, after=h.rating_after, at=h.created_at
        )
        for h in found
    )


__all__ = [
    "LoginFailureRow",
    "PlayerLine",
    "PlayerReport",
    "PlayerRow",
    "RatingRow",
    "active_board_counts",
    "player",
    "player_line",
    "player_report",
    "player_row",
    "player_rows",
    "rating_history",
]
