"""A player's vacation as ``vacation`` reads it: the one that lasts now, as a value
(:func:`current_vacation`), never the row's object."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import Vacation


@dataclass(frozen=True)
class CurrentVacation:
    """A vacation that lasts: from ``starts_at`` to ``ends_at``, ``days`` counted against
    the allowance of the year it starts in."""

    starts_at: datetime
    ends_at: datetime
    days: int


def current_vacation(session: Session, player_id: int, now: datetime) -> CurrentVacation | None:
    """The player's vacation that lasts at ``now``, if any (the latest stored, as
    :func:`pbm_emergo.db.vacations.current_vacation` finds it), read as one plain row."""
    row = session.execute(
        select(Vacation.starts_at, Vacation.ends_at, Vacation.days)
        .where(Vacation.player_id == player_id, Vacation.ends_at > now, Vacation.starts_at <= now)
        .order_by(Vacation.id.desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    return CurrentVacation(starts_at=row.starts_at, ends_at=row.ends_at, days=row.days)


__all__ = ["CurrentVacation", "current_vacation"]
