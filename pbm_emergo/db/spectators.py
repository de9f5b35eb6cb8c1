"""Spectators: subscriptions to boards (``emergo subscribe``) and the final board mails of
finished games (``emergo notify``).

A row with ``board_number`` NULL stands for every board, also boards made later. Functions
take the caller's ``Session`` and open no transaction. Who gets a board's mails by these
rows is read as values in :mod:`pbm_emergo.db.reads.watchers`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbm_emergo.db.models import Notification, Subscription

__all__ = [
    "add_notification",
    "add_subscription",
    "notifications_of",
    "remove_notifications",
    "remove_subscriptions",
    "subscriptions_of",
]

_Row = type[Subscription] | type[Notification]


def _numbers(session: Session, model: _Row, player_id: int) -> list[int | None]:
    """The boards of the player's rows, None (every board) first, then by number."""
    found = set(session.scalars(select(model.board_number).where(model.player_id == player_id)))
    return ([None] if None in found else []) + sorted(n for n in found if n is not None)


def _add(
    session: Session, model: _Row, player_id: int, number: int | None, now: datetime
) -> None:
    """Add the row unless the player has it already (then nothing changes)."""
    exists = session.scalar(
        select(model.id).where(
            model.player_id == player_id,
            model.board_number.is_(None) if number is None else model.board_number == number,
        )
    )
    if exists is not None:
        return
    try:
        with session.begin_nested():
            session.add(model(player_id=player_id, board_number=number, created_at=now))
    except IntegrityError:
        pass  # another mail of the player's added it meanwhile: the same result


def _remove(session: Session, model: _Row, player_id: int, numbers: list[int | None]) -> None:
    conditions = [
        model.board_number.is_(None) if n is None else model.board_number == n for n in numbers
    ]
    if conditions:
        session.execute(delete(model).where(model.player_id == player_id, or_(*conditions)))


def subscriptions_of(session: Session, player_id: int) -> list[int | None]:
    """The boards the player watches: None (every board) first, then board numbers."""
    return _numbers(session, Subscription, player_id)


def add_subscription(
    session: Session, player_id: int, number: int | None, now: datetime
) -> None:
    """Subscribe the player to board ``number`` (None: every board)."""
    _add(session, Subscription, player_id, number, now)


def remove_subscriptions(session: Session, player_id: int, numbers: list[int | None]) -> None:
    """Drop the player's subscriptions to these boards (None: the one to every board)."""
    _remove(session, Subscription, player_id, numbers)


def notifications_of(session: Session, player_id: int) -> list[int | None]:
    """The finished games whose final board mail the player asked for: None (every game)
    first, then board numbers."""
    return _numbers(session, Notification, player_id)


def add_notification(
    session: Session, player_id: int, number: int | None, now: datetime
) -> None:
    """Ask for the final board mail of board ``number`` (None: of every game)."""
    _add(session, Notification, player_id, number, now)


def remove_notifications(session: Session, player_id: int, numbers: list[int | None]) -> None:
    """No more final board mails of these boards (None: the wish for every game)."""
    _remove(session, Notification, player_id, numbers)
