"""Vacations on values: the allowance, and what ``vacation`` starts or ends."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from pbm_emergo.game.account_changes import VacationEnded, VacationStarted
from pbm_emergo.game.vacations import (
    VacationAsked,
    VacationSet,
    days_begun,
    days_left,
    decide_vacation,
)
from pbm_emergo.rules.reasons import Reason
from tests.game.boards import NOW


def test_a_day_begun_counts_whole() -> None:
    assert days_begun(NOW, NOW) == 1
    assert days_begun(NOW, NOW + timedelta(hours=1)) == 1
    assert days_begun(NOW, NOW + timedelta(days=1)) == 1
    assert days_begun(NOW, NOW + timedelta(days=1, seconds=1)) == 2


def test_the_days_left_of_the_year() -> None:
    assert days_left(30, 0, NOW) == 30
    assert days_left(30, 12, NOW) == 18
    assert days_left(30, 40, NOW) == 0  # never below nothing


def test_the_current_vacation_counts_only_the_days_it_began() -> None:
    # 10 days taken by a vacation that began 2 days and an hour ago: 3 days count.
    start = NOW - timedelta(days=2, hours=1)
    assert days_left(30, 10, NOW, (start, 10)) == 27
    # One that started last year counts against last year's allowance, not this one's.
    last_year = NOW.replace(year=NOW.year - 1, month=12, day=30)
    assert days_left(30, 0, NOW, (last_year, 10)) == 30


def _asked(days: int | None, **changes: object) -> VacationAsked:
    asked = VacationAsked(
        player_id=7, userid="carol", days=days, current=None, taken=0, allowance=30,
        expected=None,
    )
    return replace(asked, **changes)  # type: ignore[arg-type]


def test_a_vacation_starts_with_the_days_left_after_it() -> None:
    decided = decide_vacation(_asked(10, taken=5), NOW)
    assert decided == VacationSet(VacationStarted(7, NOW, 10, None), 15, NOW + timedelta(days=10))


def test_a_new_vacation_replaces_the_current_one() -> None:
    # 20 days from two days and an hour ago: 3 days begun count, 17 come back.
    start = NOW - timedelta(days=2, hours=1)
    until = start + timedelta(days=20)
    asked = _asked(27, current=(start, 20), taken=20, expected=until)
    decided = decide_vacation(asked, NOW)
    assert isinstance(decided, VacationSet)
    assert decided.change == VacationStarted(7, NOW, 27, until) and decided.left == 0


def test_ending_a_vacation() -> None:
    start = NOW - timedelta(days=2, hours=1)
    until = start + timedelta(days=10)
    decided = decide_vacation(_asked(None, current=(start, 10), taken=10, expected=until), NOW)
    assert decided == VacationSet(VacationEnded(7, NOW, until), 27, None)
    none = decide_vacation(_asked(None), NOW)
    assert isinstance(none, Reason) and str(none) == "carol is not on vacation."


@pytest.mark.parametrize(("days", "taken", "code"), [
    (0, 0, "vacation_too_short"),
    (-3, 0, "vacation_too_short"),
    (31, 0, "vacation_over_allowance"),
    (3, 28, "vacation_over_allowance"),
])
def test_vacations_refused(days: int, taken: int, code: str) -> None:
    decided = decide_vacation(_asked(days, taken=taken), NOW)
    assert isinstance(decided, Reason) and decided.code == code


def test_over_the_allowance_says_what_is_left() -> None:
    decided = decide_vacation(_asked(3, taken=29), NOW)
    assert str(decided) == (
        f"You asked for 3 days of vacation, but carol has 1 day left for {NOW.year} (of 30 a "
        "year); nothing was changed."
    )
