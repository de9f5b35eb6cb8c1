"""Finding and refusing opponents: players seeking games, players refusing challenges, and
new boards declined by their players (removed).

Functions take the caller's ``Session`` and open no transaction. Writes computed from an
earlier read re-check it and raise :class:`~pbm_emergo.db.errors.Conflict` when it changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import BOARD_ACTIVE, Board, Player
from pbm_emergo.db.reads.players import active_board_counts
from pbm_emergo.db.session import rowcount

__all__ = [
    "active_boards",
    "remove_declined_board",
    "seekers",
    "set_policy",
    "set_seeking",
    "take_seek",
]


def set_seeking(session: Session, player_id: int, count: int) -> None:
    """How many more games the player seeks (0: none)."""
    session.execute(
        update(Player)
        .where(Player.id == player_id)
        .values(seeking=count)
        .execution_options(synchronize_session=False)
    )


def take_seek(session: Session, player_id: int) -> None:
    """A challenge of the player answers one of the games they seek (if they seek any)."""
    session.execute(
        update(Player)
        .where(Player.id == player_id, Player.seeking > 0)
        .values(seeking=Player.seeking - 1)
        .execution_options(synchronize_session=False)
    )


@dataclass(frozen=True)
class Seeker:
    """A player seeking games, as the list of seekers shows them (a
    :class:`~pbm_emergo.game.ratings.Rated` standing: whether the rating is provisional)."""

    id: int
    userid: str
    seeking: int
    rating: int
    deviation: float
    volatility: float
    rated_games: int


def seekers(session: Session) -> list[Seeker]:
    """The active players seeking games: the most games sought first, then by rating."""
    rows = session.execute(
        select(
            Player.id, Player.userid, Player.seeking, Player.rating, Player.deviation,
            Player.volatility, Player.rated_games,
        )
        .where(Player.seeking > 0, Player.signed_off_at.is_(None))
        .order_by(Player.seeking.desc(), Player.rating.desc(), Player.userid_key)
    )
    return [Seeker(*row) for row in rows]


def set_policy(
    session: Session, player_id: int, *, refuses: bool, board_limit: int | None
) -> None:
    """Which challenges the player refuses: all (``refuses``), or those beyond
    ``board_limit`` active boards (None: no limit)."""
    session.execute(
        update(Player)
        .where(Player.id == player_id)
        .values(refuses_challenges=refuses, board_limit=board_limit)
        .execution_options(synchronize_session=False)
    )


def active_boards(session: Session, player_id: int) -> int:
    """How many active boards the player has (the one count of the read models)."""
    return active_board_counts(session, [player_id]).get(player_id, 0)


def remove_declined_board(session: Session, number: int, expected_ply: int) -> None:
    """Remove a board one of its players declined: its moves, votes, queued moves and
    subscriptions go with it (ON DELETE CASCADE); it was never rated, and its number is not
    handed out again (the board counter only goes up). Conflict if the board moved on or
    ended since it was read."""
    result = session.execute(
        delete(Board)
        .where(
            Board.number == number, Board.ply == expected_ply, Board.status == BOARD_ACTIVE
        )
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict(f"Board {number} has changed meanwhile; it was not removed.")
