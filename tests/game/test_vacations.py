"""The vacation allowance on values."""

from __future__ import annotations

from datetime import timedelta

from pbm_emergo.game.vacations import days_begun, days_left
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
