"""The time bank (``-timebank=``, ``-increment=``) and the weekend pause (``-weekends``) of a
board's clock, on values (game.clock)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from pbm_emergo.game.board import PlayedMove
from pbm_emergo.game.clock import (
    TimeBank,
    bank_left,
    clock_reaches,
    deadlines,
    hours_of,
    merged,
    running,
    time_bank_fault,
    weekends,
)
from pbm_emergo.game.rematch import rematch_terms
from tests.game.boards import ALICE, BOB, NOW, snapshot

HOUR, DAY = timedelta(hours=1), timedelta(days=1)
START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)  # a Monday
BANK = TimeBank(cap=240 * HOUR, increment=36 * HOUR)


def side(pid: int) -> str:
    return "white" if pid == ALICE.id else "black"


def test_the_bank_starts_full_and_each_move_takes_its_thinking_time() -> None:
    moves = [(ALICE.id, START + 100 * HOUR)]
    left = bank_left(START, moves, side, {}, "black", START + 150 * HOUR, BANK)
    # alice: 240 - 100 + 36; bob: thinking since alice's move, 50 hours.
    assert left == {"white": 176 * HOUR, "black": 190 * HOUR}


def test_the_increment_fills_the_bank_no_further_than_its_cap() -> None:
    moves = [(ALICE.id, START + HOUR), (BOB.id, START + 2 * HOUR), (ALICE.id, START + 3 * HOUR)]
    left = bank_left(START, moves, side, {}, None, None, BANK)
    assert left == {"white": 240 * HOUR, "black": 240 * HOUR}


def test_slow_moves_run_the_bank_down_across_the_game() -> None:
    bank = TimeBank(cap=72 * HOUR, increment=12 * HOUR)
    moves, moment = [], START
    for number in range(6):  # each player thinks 30 hours a move: 18 more than they get
        moment += 30 * HOUR
        moves.append((ALICE.id if number % 2 == 0 else BOB.id, moment))
    left = bank_left(START, moves, side, {}, "white", moment, bank)
    assert left == {"white": 72 * HOUR - 3 * 18 * HOUR, "black": 72 * HOUR - 3 * 18 * HOUR}
    later = bank_left(START, moves, side, {}, "white", moment + 18 * HOUR, bank)
    assert later["white"] == timedelta()


def test_a_vacation_stops_the_bank_too() -> None:
    away = {"black": [(START + 10 * HOUR, START + 30 * HOUR)]}
    left = bank_left(START, [], side, away, "black", START + 40 * HOUR, BANK)
    assert left["black"] == 220 * HOUR


def test_the_deadlines_of_a_time_bank_game() -> None:
    state = snapshot(["e4"]).state.replace(timebank_hours=96, increment_hours=24)
    last = state.moves[-1].played_at
    due = deadlines(state, NOW)
    assert due is not None
    # bob's full bank of four days, well before the forfeit time of 28 days.
    assert due.forfeit == last + 4 * DAY and due.reminder == last + 3 * DAY


def test_the_weekends_in_the_players_time_zone() -> None:
    friday, tuesday = START - 3 * DAY, START + DAY
    assert weekends("UTC", friday, tuesday) == [
        (datetime(2026, 2, 28, tzinfo=UTC), datetime(2026, 3, 2, tzinfo=UTC))
    ]
    # In Amsterdam (UTC+1 in winter) the weekend starts and ends an hour earlier in UTC.
    assert weekends("Europe/Amsterdam", friday, tuesday) == [
        (datetime(2026, 2, 27, 23, tzinfo=UTC), datetime(2026, 3, 1, 23, tzinfo=UTC))
    ]
    assert weekends("UTC", START, START + 3 * DAY) == []


def test_a_weekend_does_not_count_and_a_vacation_over_it_counts_once() -> None:
    friday_noon, monday_noon = START - 3 * DAY, START
    stops = weekends("UTC", friday_noon, monday_noon)
    # Friday noon to Saturday 0:00, and Monday 0:00 to noon.
    assert running(friday_noon, monday_noon, stops) == DAY
    vacation = (START - 2 * DAY, START - DAY)  # the Saturday noon to Sunday noon
    assert merged([*stops, vacation]) == stops
    assert running(friday_noon, monday_noon, [*stops, vacation]) == DAY


def test_the_clock_reaches_its_time_after_the_stops() -> None:
    friday_noon = START - 3 * DAY
    stops = weekends("UTC", friday_noon, friday_noon + 30 * DAY)
    assert clock_reaches(friday_noon, 6 * HOUR, stops) == friday_noon + 6 * HOUR
    # Twelve hours to Saturday 0:00, then the weekend, then 24 hours more: Tuesday 0:00.
    assert clock_reaches(friday_noon, 36 * HOUR, stops) == datetime(2026, 3, 3, tzinfo=UTC)


def test_on_a_weekend_board_the_forfeit_comes_after_the_weekend() -> None:
    # NOW is a Sunday noon: bob's clock stands until Monday 0:00 (UTC, his zone).
    state = snapshot(["e4"]).state.replace(forfeit_days=3, weekends_off=True)
    due = deadlines(state, NOW)
    assert due is not None
    assert due.forfeit == datetime(2026, 3, 5, tzinfo=UTC)  # Monday 0:00 plus three days
    # A player in Amsterdam: his weekend ended at 23:00 UTC.
    bob = dataclasses.replace(state.black, timezone="Europe/Amsterdam")
    due = deadlines(state.replace(black=bob), NOW)
    assert due is not None and due.forfeit == datetime(2026, 3, 4, 23, tzinfo=UTC)


def test_a_time_bank_game_over_a_weekend() -> None:
    # Played on a Friday noon: bob's bank of three days runs twelve hours to Saturday 0:00,
    # stands over the weekend, and runs out 60 hours after Monday 0:00.
    friday_noon = START - 3 * DAY
    state = snapshot(["e4"]).state.replace(
        created_at=friday_noon - HOUR,
        moves=(PlayedMove(1, ALICE.id, "e4", friday_noon, False),),
        timebank_hours=72,
        weekends_off=True,
    )
    due = deadlines(state, friday_noon)
    assert due is not None
    assert due.forfeit == datetime(2026, 3, 4, 12, tzinfo=UTC)  # 12h + weekend + 60h


def test_the_time_bank_options_read_and_checked() -> None:
    assert [hours_of(v) for v in ("240h", "10d", "10", "0h", "lots", "h", "-5h")] == [
        240, 240, 240, 0, None, None, None,
    ]  # fmt: skip
    assert time_bank_fault(240, 36) is None and time_bank_fault(None, None) is None
    assert time_bank_fault(72, 0) is None
    for bank, increment, start in (
        (None, 36, "The option -increment= adds time to a time bank"),
        (24, None, "The time bank (-timebank=) holds from 72 hours"),
        (72, 80, "The increment (-increment=) is more than"),
        (366 * 24, None, "The time bank (-timebank=) holds from 72 hours"),
    ):
        fault = time_bank_fault(bank, increment)
        assert fault is not None and str(fault).startswith(start)


def test_a_rematch_keeps_the_time_bank_and_the_weekend_pause() -> None:
    state = snapshot(["e4"]).state.replace(
        status="finished", to_move=None, timebank_hours=240, increment_hours=36,
        weekends_off=True,
    )  # fmt: skip
    terms = rematch_terms(state, BOB.id).terms
    assert (terms.timebank_hours, terms.increment_hours, terms.weekends_off) == (240, 36, True)
