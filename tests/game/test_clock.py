"""When the reminder and the loss on time come (game.clock.deadlines), on values: the
scheduler's rules (app.timers) read forward from the board as it stands."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from pbm_emergo.game.clock import deadlines, local_time, timezone_named
from tests.game.boards import BOB, NOW, snapshot

DAY = timedelta(days=1)


def test_a_turn_has_its_reminder_after_the_nag_time_and_forfeit_after_the_forfeit_time() -> None:
    state = snapshot(["e4"]).state
    last = state.moves[-1].played_at
    due = deadlines(state, NOW)
    assert due is not None and due.userid == "bob"
    assert due.reminder == last + 7 * DAY
    assert due.forfeit == last + 28 * DAY


def test_after_a_reminder_the_next_comes_a_nag_time_later() -> None:
    state = snapshot(["e4"]).state
    last = state.moves[-1].played_at
    reminded = last + 7 * DAY
    due = deadlines(state.replace(last_reminder_at=reminded), last + 8 * DAY)
    assert due is not None
    assert due.reminder == reminded + 7 * DAY and due.forfeit == last + 28 * DAY


def test_the_last_reminder_comes_a_day_before_the_forfeit() -> None:
    # A nag time longer than the time left: one reminder a day before the time runs out.
    state = snapshot(["e4"]).state.replace(nag_days=7, forfeit_days=3)
    last = state.moves[-1].played_at
    due = deadlines(state, NOW)
    assert due is not None
    assert due.reminder == last + 2 * DAY and due.forfeit == last + 3 * DAY


def test_no_loss_on_time_sooner_than_a_day_after_a_reminder() -> None:
    # Reminded an hour before the time ran out: lost no sooner than a day after it, and no
    # further reminder before then.
    state = snapshot(["e4"]).state.replace(nag_days=7, forfeit_days=3)
    last = state.moves[-1].played_at
    reminded = last + 3 * DAY - timedelta(hours=1)
    due = deadlines(state.replace(last_reminder_at=reminded), reminded)
    assert due is not None
    assert due.forfeit == reminded + DAY and due.reminder is None


def test_a_vacation_in_the_turn_moves_both_later() -> None:
    state = snapshot(["e4"]).state
    last = state.moves[-1].played_at
    away = (BOB.id, last + DAY, last + 3 * DAY)  # two days off, over
    due = deadlines(state.replace(vacations=(away,)), last + 4 * DAY)
    assert due is not None
    assert due.reminder == last + 9 * DAY and due.forfeit == last + 30 * DAY


def test_no_deadlines_while_on_vacation_or_once_the_game_is_over() -> None:
    state = snapshot(["e4"]).state
    bob = dataclasses.replace(state.black, vacation_until=NOW + DAY)
    assert deadlines(state.replace(black=bob), NOW) is None
    assert deadlines(state.replace(status="finished", to_move=None), NOW) is None


def test_the_total_thinking_time_may_come_first() -> None:
    state = snapshot(["e4"]).state.replace(total_days=3)
    due = deadlines(state, NOW)
    assert due is not None
    # bob's own thinking time is only this turn's: all three days are left from alice's move.
    assert due.forfeit == state.moves[-1].played_at + 3 * DAY
    assert due.reminder == due.forfeit - DAY


def test_the_deadlines_are_in_the_zone_of_the_player_to_move() -> None:
    state = snapshot(["e4"]).state
    bob = dataclasses.replace(state.black, timezone="Europe/Amsterdam")
    due = deadlines(state.replace(black=bob), NOW)
    assert due is not None and due.timezone == "Europe/Amsterdam"
    due = deadlines(state, NOW)
    assert due is not None and due.timezone == "UTC"


def test_time_zone_names() -> None:
    assert timezone_named("europe/amsterdam") == "Europe/Amsterdam"
    assert timezone_named("UTC") == "UTC"
    assert timezone_named("Mars/Olympus") is None
    assert timezone_named("Europe/Amsterdam\u0660") is None
    moment = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    assert local_time(moment, "America/New_York") == "2026-07-01 08:00 EDT (America/New_York)"
    assert local_time(moment, "UTC") == "2026-07-01 12:00 UTC"
    assert local_time(moment, "No/Such_Zone") == "2026-07-01 12:00 UTC"
