"""A player's vacation as ``vacation`` reads it: the one that lasts now, as a value
(:func:`current_vacation`), never the row's object."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import Vacation
from pbm_emergo.db.vacations import lasting


@dataclass(frozen=True)
class CurrentVacation:
    """A vacation that lasts: from ``starts_at`` to ``ends_at``, ``days`` counted against
    the allowance of the year it starts in."""

    starts_at: datetime
    ends_at: datetime
    days: int


def current_vacation(session: Session, player_id: int, now: datetime) -> CurrentVacation | None:
    """The player's vacation that lasts at ``now``, if any, read as one plain row."""
    row = session.execute(
        lasting(select(Vacation.starts_at, Vacation.ends_at, Vacation.days), player_id, now)
    ).first()
    if row is None:
        return None
    return CurrentVacation(starts_at=row.starts_at, ends_at=row.ends_at, days=row.days)


__all__ = ["CurrentVacation", "current_vacation"]
