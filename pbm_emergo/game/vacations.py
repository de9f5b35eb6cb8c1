"""Vacations on values: the days a vacation counts, the days left, and what ``vacation``
starts or ends.

Each calendar year allows a number of vacation days, counted in the year a vacation
starts; a vacation ended early counts only the days it began. A new vacation replaces the
current one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm_emergo.game.account_changes import VacationEnded, VacationStarted
from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules.reasons import Reason

__all__ = ["VacationAsked", "VacationSet", "days_begun", "days_left", "decide_vacation"]


def days_begun(start: datetime, end: datetime) -> int:
    """The days of a vacation from ``start`` to ``end`` that began (at least one)."""
    return max(1, -(-(end - start) // timedelta(days=1)))


def days_left(
    allowance: int, taken: int, now: datetime, current: tuple[datetime, int] | None = None
) -> int:
    """The vacation days left in ``now``'s year: ``allowance`` less the days ``taken``
    (by the vacations that start in the year), the current vacation (its start and its
    days, if any) counted as if it ended now, since a new vacation replaces it."""
    if current is not None:
        start, days = current
        if start.year == now.year:
            taken -= days - days_begun(start, now)
    return max(allowance - taken, 0)


@dataclass(frozen=True, slots=True)
class VacationAsked:
    """A player's ``vacation`` command as read: ``days`` (None: end the current one), the
    current vacation (its start and days; None: none), the days taken by the vacations that
    start in ``now``'s year, the year's ``allowance``, and the player's ``vacation_until``
    as read (the change re-checks it)."""

    player_id: int
    userid: str
    days: int | None
    current: tuple[datetime, int] | None
    taken: int
    allowance: int
    expected: datetime | None


@dataclass(frozen=True, slots=True)
class VacationSet:
    """What ``vacation`` does: ``change`` stores it; ``left``: the days left in the year
    after it; ``until``: the end of the new vacation (None: the current one ended)."""

    change: VacationStarted | VacationEnded
    left: int
    until: datetime | None


def decide_vacation(asked: VacationAsked, now: datetime) -> VacationSet | Reason:
    """Start a vacation of ``asked.days`` days from ``now`` (replacing the current one), or
    end the current one now; or why not."""
    left = days_left(asked.allowance, asked.taken, now, asked.current)
    if asked.days is None:
        if asked.current is None:
            return refusal("not_on_vacation", userid=asked.userid)
        return VacationSet(VacationEnded(asked.player_id, now, asked.expected), left, None)
    if asked.days < 1:
        return refusal("vacation_too_short")
    if asked.days > left:
        return refusal(
            "vacation_over_allowance", days=asked.days, userid=asked.userid, num=left,
            year=now.year, allowance=asked.allowance,
        )
    change = VacationStarted(asked.player_id, now, asked.days, asked.expected)
    return VacationSet(change, left - asked.days, now + timedelta(days=asked.days))
