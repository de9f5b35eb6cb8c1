"""The operator's support changes to accounts: a player deleted, closed or merged into another.

These are the writes of ``pbm-emergo admin delete-player`` and ``admin merge-players``
(:mod:`pbm_emergo.app.support` decides, the command line applies them in one write
transaction). Functions take the caller's ``Session`` and open no transaction; they change
rows with plain statements, so ORM objects read before them are stale afterwards (they are
expired). A write re-checks what the game layer relied on and raises
:class:`~pbm_emergo.db.errors.Conflict` when it no longer holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from pbm_emergo.db import credentials
from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import (
    CLOSED_PASSWORD_HASH,
    AddressConfirmation,
    Block,
    Board,
    GameNote,
    LoginFailure,
    MoveRecord,
    Notification,
    PasswordReset,
    Player,
    PlayerAddress,
    QueuedMove,
    RatingChange,
    Subscription,
    Vacation,
    Vote,
)
from pbm_emergo.db.session import rowcount

__all__ = [
    "CLOSED_PASSWORD_HASH",
    "board_numbers_of",
    "boards_between",
    "close_account",
    "delete_player",
    "merge_players",
]


def _plays(player_id: int) -> ColumnElement[bool]:
    return or_(Board.white_player_id == player_id, Board.black_player_id == player_id)


def board_numbers_of(session: Session, player_id: int, status: str | None = None) -> list[int]:
    """The numbers of the player's boards (only those with ``status`` if given)."""
    stmt = select(Board.number).where(_plays(player_id))
    if status is not None:
        stmt = stmt.where(Board.status == status)
    return list(session.scalars(stmt.order_by(Board.number)))


def boards_between(session: Session, first_id: int, second_id: int) -> list[int]:
    """The numbers of the boards on which these two players play each other."""
    stmt = select(Board.number).where(
        or_(
            and_(Board.white_player_id == first_id, Board.black_player_id == second_id),
            and_(Board.white_player_id == second_id, Board.black_player_id == first_id),
        )
    )
    return list(session.scalars(stmt.order_by(Board.number)))


def delete_player(session: Session, player_id: int) -> None:
    """Delete the player's row; its addresses, vacations, subscriptions, notifications,
    rating history, wrong-password counts and waiting address confirmations go with it (the
    foreign keys cascade). Conflict if the player has a board (boards keep their players)."""
    if board_numbers_of(session, player_id):
        raise Conflict("The player has boards: their account can only be closed.")
    result = session.execute(
        delete(Player).where(Player.id == player_id).execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict("The player was deleted meanwhile.")
    credentials.cache().forget(player_id)
    session.expire_all()


def close_account(session: Session, player_id: int, now: datetime) -> None:
    """Close the account of a player whose boards stay: the row is kept for their finished
    games (userid, rating, won/lost/drawn, rating history, moves), signed off if it was not,
    with a password hash no password matches; everything that reaches or identifies the
    person goes: registered addresses, waiting address confirmations, wrong-password counts,
    subscriptions, notifications, reset codes, the player's blocks and private notes, games
    sought and the current vacation. Conflict if an active board is left (resign them
    first)."""
    if board_numbers_of(session, player_id, "active"):
        raise Conflict("The player still has active boards.")
    for model in (
        PlayerAddress, AddressConfirmation, LoginFailure, Subscription, Notification,
        PasswordReset, Block, GameNote,
    ):  # fmt: skip
        session.execute(
            delete(model)
            .where(model.player_id == player_id)
            .execution_options(synchronize_session=False)
        )
    player = session.get(Player, player_id, populate_existing=True)
    if player is None:
        raise Conflict("The player was deleted meanwhile.")
    session.execute(
        update(Player)
        .where(Player.id == player_id)
        .values(
            password_hash=CLOSED_PASSWORD_HASH,
            signed_off_at=player.signed_off_at or now,
            seeking=0,
            vacation_until=None,
        )
        .execution_options(synchronize_session=False)
    )
    credentials.cache().forget(player_id)
    session.expire_all()


def merge_players(session: Session, old_id: int, kept_id: int) -> None:
    """Move everything of the player ``old_id`` to ``kept_id`` and delete ``old_id``.

    The kept player takes over the boards (as white or black), their moves, draw offers,
    undo requests and queued moves, the rating history lines and vacations; the
    subscriptions and notifications the kept player does not have already; and the
    registered addresses the kept player does not have already, after their own (in their
    order). The finished games' counts (won, lost, drawn, rated games) are added to the
    kept player's; the kept player's rating stays. What is left of ``old_id`` (duplicate
    addresses and subscriptions, wrong-password counts, waiting confirmations) is deleted
    with its row. Conflict if the two play each other on a board (a board needs two
    players) or either row is gone.
    """
    if boards_between(session, old_id, kept_id):
        raise Conflict("The two players play each other on a board.")
    old = session.get(Player, old_id, populate_existing=True)
    kept = session.get(Player, kept_id, populate_existing=True)
    if old is None or kept is None:
        raise Conflict("A player was deleted meanwhile.")
    moved = {"player_id": kept_id}
    for side in (Board.white_player_id, Board.black_player_id):
        session.execute(
            update(Board)
            .where(side == old_id)
            .values({side.key: kept_id})
            .execution_options(synchronize_session=False)
        )
    for model in (MoveRecord, Vote, QueuedMove, RatingChange, Vacation):
        session.execute(
            update(model)
            .where(model.player_id == old_id)
            .values(moved)
            .execution_options(synchronize_session=False)
        )
    for rows in (Subscription, Notification):
        _move_board_rows(session, rows, old_id, kept_id)
    _move_addresses(session, old_id, kept_id)
    session.execute(
        update(Player)
        .where(Player.id == kept_id)
        .values(
            won=Player.won + old.won,
            lost=Player.lost + old.lost,
            drawn=Player.drawn + old.drawn,
            rated_games=Player.rated_games + old.rated_games,
        )
        .execution_options(synchronize_session=False)
    )
    session.execute(
        delete(Player).where(Player.id == old_id).execution_options(synchronize_session=False)
    )
    credentials.cache().forget(old_id)
    session.expire_all()


def _move_board_rows(
    session: Session, model: type[Subscription] | type[Notification], old_id: int, kept_id: int
) -> None:
    """The old player's rows for boards (or every board: NULL) the kept one has no row for."""
    have = set(session.scalars(select(model.board_number).where(model.player_id == kept_id)))
    for row_id, number in session.execute(
        select(model.id, model.board_number).where(model.player_id == old_id)
    ):
        if number in have:
            continue
        session.execute(
            update(model)
            .where(model.id == row_id)
            .values(player_id=kept_id)
            .execution_options(synchronize_session=False)
        )


def _move_addresses(session: Session, old_id: int, kept_id: int) -> None:
    """The old player's addresses the kept one lacks, after the kept one's own."""
    kept: Sequence[tuple[str, int]] = session.execute(
        select(PlayerAddress.address_key, PlayerAddress.position).where(
            PlayerAddress.player_id == kept_id
        )
    ).all()
    keys = {key for key, _ in kept}
    position = max((p for _, p in kept), default=-1) + 1
    old = session.execute(
        select(PlayerAddress.id, PlayerAddress.address_key)
        .where(PlayerAddress.player_id == old_id)
        .order_by(PlayerAddress.position)
    ).all()
    for row_id, key in old:
        if key in keys:
            continue
        keys.add(key)
        session.execute(
            update(PlayerAddress)
            .where(PlayerAddress.id == row_id)
            .values(player_id=kept_id, position=position)
            .execution_options(synchronize_session=False)
        )
        position += 1
