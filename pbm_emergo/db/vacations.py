"""Vacations (``vacation userid password DAYS|off``): the rows behind ``players.vacation_until``.

``players.vacation_until`` is the end of the player's current vacation (what the scheduler
and the board mail look at); ``vacations`` keeps every vacation, for the allowance of each
calendar year and for the clocks, which do not run while a player is on vacation.

Functions take the caller's ``Session`` and open no transaction; writes re-check what the
command read and raise :class:`~pbm_emergo.db.errors.Conflict` when it changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import TypeVarTuple

from sqlalchemy import Select, func, select, update
from sqlalchemy.orm import Session

from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import Player, Vacation
from pbm_emergo.db.session import rowcount
from pbm_emergo.game.vacations import days_begun

_Ts = TypeVarTuple("_Ts")

__all__ = [
    "Period",
    "current_vacation",
    "days_begun",
    "days_taken",
    "end_vacation",
    "lasting",
    "mark_end_told",
    "periods_of",
    "start_vacation",
]

# A vacation from its start to its end.
Period = tuple[datetime, datetime]


def days_taken(session: Session, player_id: int, year: int) -> int:
    """The vacation days counted against the player's allowance of ``year`` (the vacations
    that start in it)."""
    start = datetime(year, 1, 1, tzinfo=UTC)
    end = datetime(year + 1, 1, 1, tzinfo=UTC)
    total = session.scalar(
        select(func.coalesce(func.sum(Vacation.days), 0)).where(
            Vacation.player_id == player_id, Vacation.starts_at >= start, Vacation.starts_at < end
        )
    )
    return int(total or 0)


def lasting(
    statement: Select[*_Ts], player_id: int, now: datetime
) -> Select[*_Ts]:
    """``statement`` over the vacations narrowed to the player's vacation that lasts at
    ``now`` (the latest stored, if two overlap)."""
    return (
        statement.where(
            Vacation.player_id == player_id, Vacation.ends_at > now, Vacation.starts_at <= now
        )
        .order_by(Vacation.id.desc())
        .limit(1)
    )


def current_vacation(session: Session, player_id: int, now: datetime) -> Vacation | None:
    """The player's vacation that lasts at ``now``, if any."""
    return session.scalars(lasting(select(Vacation), player_id, now)).first()


def periods_of(
    session: Session, player_ids: Iterable[int], since: datetime
) -> dict[int, list[Period]]:
    """The vacations of these players that end after ``since``, by player (one read)."""
    ids = sorted(set(player_ids))
    found: dict[int, list[Period]] = {i: [] for i in ids}
    if not ids:
        return found
    rows = session.execute(
        select(Vacation.player_id, Vacation.starts_at, Vacation.ends_at)
        .where(Vacation.player_id.in_(ids), Vacation.ends_at > since)
        .order_by(Vacation.starts_at)
    )
    for player_id, start, end in rows:
        found[player_id].append((start, end))
    return found


def _set_until(
    session: Session, player_id: int, until: datetime | None, expected: datetime | None
) -> None:
    stmt = update(Player).where(Player.id == player_id)
    stmt = stmt.where(
        Player.vacation_until.is_(None) if expected is None else Player.vacation_until == expected
    )
    result = session.execute(
        stmt.values(vacation_until=until).execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict("The vacation was changed meanwhile.")


def _close(session: Session, player_id: int, now: datetime) -> None:
    """End the player's current vacation at ``now``, counting only the days it began."""
    running = current_vacation(session, player_id, now)
    if running is not None:
        running.days = days_begun(running.starts_at, now)
        running.ends_at = now
        running.end_told = True  # the reply that ends or replaces it says so
        session.flush()


def start_vacation(
    session: Session, player_id: int, now: datetime, days: int, *, expected: datetime | None
) -> datetime:
    """A vacation of ``days`` days from ``now`` (a current one ends now); returns its end.
    ``expected``: ``players.vacation_until`` as the command read it (else Conflict)."""
    until = now + timedelta(days=days)
    _set_until(session, player_id, until, expected)
    _close(session, player_id, now)
    session.add(Vacation(player_id=player_id, starts_at=now, ends_at=until, days=days))
    session.flush()
    return until


def end_vacation(
    session: Session, player_id: int, now: datetime, *, expected: datetime | None
) -> None:
    """End the player's vacation now (``vacation ... off``)."""
    _set_until(session, player_id, None, expected)
    _close(session, player_id, now)


def mark_end_told(session: Session, vacation_id: int) -> None:
    """The player was told that vacation ``vacation_id`` ended (Conflict: told already)."""
    result = session.execute(
        update(Vacation)
        .where(Vacation.id == vacation_id, Vacation.end_told.is_(False))
        .values(end_told=True)
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict("The end of the vacation was told meanwhile.")
