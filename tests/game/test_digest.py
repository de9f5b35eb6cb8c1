"""When a daily digest is due, and how it lists a board waiting for a move (game.digest), on
values."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from pbm_emergo.game.digest import digest_due, digest_slot, waiting_board
from tests.game.boards import NOW, snapshot


def test_the_slot_is_the_last_such_hour_of_the_players_day() -> None:
    # 2026-03-01 12:00 UTC is 13:00 in Amsterdam (CET).
    assert digest_slot(18, "Europe/Amsterdam", NOW) == datetime(2026, 2, 28, 17, 0, tzinfo=UTC)
    assert digest_slot(9, "Europe/Amsterdam", NOW) == datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
    assert digest_slot(12, "UTC", NOW) == NOW
    # Summer time: 18:00 in Amsterdam is 16:00 UTC.
    summer = datetime(2026, 7, 1, 17, 0, tzinfo=UTC)
    assert digest_slot(18, "Europe/Amsterdam", summer) == datetime(2026, 7, 1, 16, 0, tzinfo=UTC)


def test_a_digest_is_due_once_a_day_once_its_hour_has_come() -> None:
    hour, zone = 18, "Europe/Amsterdam"
    turned_on = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)  # 13:00 there
    assert not digest_due(hour, zone, turned_on, turned_on + timedelta(hours=4))  # 17:00
    six = datetime(2026, 3, 1, 17, 0, tzinfo=UTC)  # 18:00 there
    assert digest_due(hour, zone, turned_on, six)
    assert not digest_due(hour, zone, six, six + timedelta(hours=23, minutes=59))
    assert digest_due(hour, zone, six, six + timedelta(days=1))
    # Turned on after the hour: the first comes the next day.
    late = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
    assert not digest_due(hour, zone, late, late + timedelta(hours=20))
    assert digest_due(hour, zone, late, six + timedelta(days=1))
    assert digest_due(hour, zone, None, six)


def test_a_waiting_board_says_whose_side_the_time_left_and_the_reply_line() -> None:
    state = snapshot(["e4"]).state  # bob (Eks) to move; nag 7, forfeit 28 days
    bob = dataclasses.replace(state.black, timezone="Europe/Amsterdam")
    shown = waiting_board(state.replace(black=bob), "bob", NOW, lambda d: f"{d.days} days")
    assert (shown.number, shown.opponent, shown.side, shown.move) == (101, "alice", "Eks (x)", 2)
    assert shown.time_left == "27 days"
    assert shown.deadlines == (
        "a reminder at 2026-03-08 12:00 CET (Europe/Amsterdam), lost on time from "
        "2026-03-29 13:00 CEST (Europe/Amsterdam)"
    )
    assert shown.reply == "emergo move 101 bob PASSWORD MOVE"
    away = dataclasses.replace(bob, vacation_until=NOW + timedelta(days=2))
    on_vacation = waiting_board(state.replace(black=away), "bob", NOW, str)
    assert (on_vacation.time_left, on_vacation.deadlines) == (
        "the clock stands", "bob is on vacation",
    )  # fmt: skip
