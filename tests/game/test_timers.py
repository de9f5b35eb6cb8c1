"""The scheduler's decisions (game.timers) on values, without a database: reminders at the
nag time and before the time runs out, losses on time (idle, total thinking time, time
bank), vacations and weekends that stop the clock, the reminder that must reach the
player first, a lock-out's day of vacation, an open draw offer accepted at forfeit time."""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, datetime, timedelta

import pytest

from pbm_emergo.game.account_changes import VacationStarted
from pbm_emergo.game.board import BLACK, WHITE, BoardState, OpenVote
from pbm_emergo.game.board_changes import ReminderSent
from pbm_emergo.game.changes import GameFinished
from pbm_emergo.game.clock import (
    REMINDER_NOTICE,
    TimeBank,
    bank_left,
    deadlines,
    thinking_time,
    time_left,
)
from pbm_emergo.game.timers import (
    BoardClock,
    LockOutHold,
    LossOnTimeDue,
    ReminderDue,
    TimeRanOut,
    after_time_ran_out,
    decide_clock,
    decide_loss_on_time,
    lock_out_hold,
    on_vacation,
    vacation_over_left,
)
from pbm_emergo.rules import Termination
from tests.game.boards import ALICE, BOB, random_game, snapshot

HOUR, DAY, MINUTE = timedelta(hours=1), timedelta(days=1), timedelta(minutes=1)
START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)  # a Monday


def board(**terms: object) -> BoardClock:
    """Board 7, created at START, black (bob) to move after white's move at START; a
    reminder after 3 days, lost on time after 10."""
    values: dict[str, object] = dict(
        number=7,
        ply=1,
        to_move=BLACK,
        player_id=BOB.id,
        white_id=ALICE.id,
        created_at=START,
        last_move_at=START,
        last_reminder_at=None,
        vacation_until=None,
        nag_days=3,
        forfeit_days=10,
        moves=((ALICE.id, START),),
    )
    values.update(terms)
    return BoardClock(**values)  # type: ignore[arg-type]


# --- reminders -----------------------------------------------------------------------------


@pytest.mark.parametrize("nag_days", [1, 2, 3, 5, 7])
def test_no_reminder_before_the_nag_time_and_one_at_it(nag_days: int) -> None:
    clock = board(nag_days=nag_days, forfeit_days=nag_days + 5)
    nag = START + nag_days * DAY
    assert decide_clock(clock, nag - MINUTE) is None
    due = decide_clock(clock, nag)
    assert isinstance(due, ReminderDue)
    assert due.waiting == nag_days * DAY and due.left == 5 * DAY
    assert (due.number, due.player_id) == (7, BOB.id)


def test_a_reminder_is_stored_as_a_change_that_rechecks_the_move_count_and_the_last_one() -> None:
    reminded = START + 3 * DAY
    due = decide_clock(board(last_reminder_at=reminded), START + 6 * DAY)
    assert isinstance(due, ReminderDue)
    at = START + 6 * DAY
    assert due.change(at) == ReminderSent(7, at, expected_ply=1, expected_last=reminded)


@pytest.mark.parametrize("hours_since", [0, 1, 24, 71])
def test_a_reminder_already_sent_in_this_turn_waits_a_nag_time(hours_since: int) -> None:
    reminded = START + 3 * DAY
    clock = board(last_reminder_at=reminded)
    assert decide_clock(clock, reminded + hours_since * HOUR) is None


def test_the_next_reminder_comes_a_nag_time_after_the_last() -> None:
    reminded = START + 3 * DAY
    clock = board(last_reminder_at=reminded)
    assert isinstance(decide_clock(clock, reminded + 3 * DAY), ReminderDue)


def test_a_reminder_of_the_turn_before_does_not_count() -> None:
    # Reminded before the last move: this turn has had none, the nag time counts from the
    # move.
    clock = board(last_reminder_at=START - DAY)
    assert decide_clock(clock, START + 3 * DAY - MINUTE) is None
    assert isinstance(decide_clock(clock, START + 3 * DAY), ReminderDue)


def test_a_reminder_comes_a_day_before_the_time_runs_out_even_before_the_nag_time() -> None:
    # A total thinking time of two days runs out before the nag time of three.
    clock = board(total_days=2, forfeit_days=10)
    assert decide_clock(clock, START + DAY - MINUTE) is None
    due = decide_clock(clock, START + DAY)
    assert isinstance(due, ReminderDue) and due.left == DAY


def test_that_last_reminder_comes_only_once() -> None:
    clock = board(total_days=2, last_reminder_at=START + DAY)
    assert decide_clock(clock, START + DAY + 12 * HOUR) is None


@pytest.mark.parametrize(
    ("left", "days"),
    [(HOUR, 1), (DAY, 1), (DAY + MINUTE, 2), (5 * DAY, 5), (5 * DAY + HOUR, 6)],
)
def test_a_reminder_tells_the_whole_days_left_rounded_up_and_at_least_one(
    left: timedelta, days: int
) -> None:
    assert ReminderDue(7, BOB.id, DAY, left, 1, None).days_left == days


# --- the time runs out ---------------------------------------------------------------------


def test_the_time_runs_out_after_the_forfeit_days() -> None:
    clock = board()
    before = decide_clock(clock, START + 10 * DAY - MINUTE)
    assert not isinstance(before, TimeRanOut)
    out = decide_clock(clock, START + 10 * DAY)
    assert isinstance(out, TimeRanOut)
    assert out.why == ("idle", 10) and out.last_move == START and out.reminded_at is None


def test_the_total_thinking_time_counts_the_whole_game() -> None:
    # Bob thought 4 days for his first move; 2 of his 5 days are left for this turn.
    moves = ((ALICE.id, START), (BOB.id, START + 4 * DAY), (ALICE.id, START + 5 * DAY))
    clock = board(
        to_move=BLACK,
        ply=3,
        moves=moves,
        last_move_at=START + 5 * DAY,
        total_days=5,
        forfeit_days=20,
    )
    out = decide_clock(clock, START + 6 * DAY)
    assert isinstance(out, TimeRanOut) and out.why == ("total", 5)


def test_an_empty_time_bank_runs_out() -> None:
    clock = board(timebank_hours=72, increment_hours=12, forfeit_days=20, nag_days=10)
    out = decide_clock(clock, START + 72 * HOUR)
    assert isinstance(out, TimeRanOut) and out.why == ("bank", 0)


def test_on_a_tie_the_forfeit_days_are_the_reason() -> None:
    clock = board(forfeit_days=3, total_days=3)
    out = decide_clock(clock, START + 4 * DAY)
    assert isinstance(out, TimeRanOut) and out.why == ("idle", 3)


def test_a_reminder_tried_in_this_turn_is_remembered() -> None:
    clock = board(last_reminder_at=START + 9 * DAY)
    out = decide_clock(clock, START + 11 * DAY)
    assert isinstance(out, TimeRanOut) and out.reminded_at == START + 9 * DAY


NOW = START + 12 * DAY
OUT = TimeRanOut(
    7, BOB.id, ("idle", 10), START, None, ReminderDue(7, BOB.id, 12 * DAY, -2 * DAY, 1, None)
)


@pytest.mark.parametrize("sent_ago", [REMINDER_NOTICE, REMINDER_NOTICE + HOUR, 5 * DAY])
def test_lost_on_time_a_day_after_a_reminder_was_sent(sent_ago: timedelta) -> None:
    due = after_time_ran_out(OUT, NOW - sent_ago, False, NOW)
    assert due == LossOnTimeDue(7, BOB.id, ("idle", 10))


@pytest.mark.parametrize("sent_ago", [timedelta(), HOUR, REMINDER_NOTICE - MINUTE])
def test_not_lost_within_a_day_of_the_reminder(sent_ago: timedelta) -> None:
    assert after_time_ran_out(OUT, NOW - sent_ago, False, NOW) is None


def test_a_reminder_on_its_way_holds_the_loss_and_is_not_sent_again() -> None:
    assert after_time_ran_out(OUT, None, True, NOW) is None


def test_out_of_time_without_any_reminder_gets_one() -> None:
    assert after_time_ran_out(OUT, None, False, NOW) is OUT.reminder


def test_a_reminder_that_could_not_be_delivered_is_tried_again_once_a_day() -> None:
    tried = dataclasses.replace(OUT, reminded_at=NOW - HOUR)
    assert after_time_ran_out(tried, None, False, NOW) is None
    tried = dataclasses.replace(OUT, reminded_at=NOW - REMINDER_NOTICE)
    assert after_time_ran_out(tried, None, False, NOW) is OUT.reminder


# --- vacations and weekends ----------------------------------------------------------------


@pytest.mark.parametrize("days", [0, 3, 10, 30])
def test_a_player_on_vacation_gets_nothing(days: int) -> None:
    now = START + days * DAY
    clock = board(vacation_until=now + MINUTE)
    assert decide_clock(clock, now) is None


def test_a_vacation_that_ends_now_is_over() -> None:
    assert not on_vacation(START, START)
    assert on_vacation(START + MINUTE, START)
    assert not on_vacation(None, START)


def test_a_vacation_in_the_turn_does_not_count() -> None:
    # Five days away: after eight days the clock ran three, the nag time.
    away = ((START + DAY, START + 6 * DAY),)
    clock = board(vacations=((), away))
    assert decide_clock(clock, START + 8 * DAY - MINUTE) is None
    due = decide_clock(clock, START + 8 * DAY)
    assert isinstance(due, ReminderDue) and due.waiting == 3 * DAY


def test_the_opponents_vacation_does_not_stop_this_clock() -> None:
    clock = board(vacations=(((START + DAY, START + 6 * DAY),), ()))
    assert isinstance(decide_clock(clock, START + 3 * DAY), ReminderDue)


def test_weekends_off_stop_the_clock_from_saturday_to_monday() -> None:
    # Monday noon to the next Monday noon: five days on the clock, not seven.
    clock = board(weekends_off=True, nag_days=5)
    assert decide_clock(clock, START + 7 * DAY - MINUTE) is None
    due = decide_clock(clock, START + 7 * DAY)
    assert isinstance(due, ReminderDue) and due.waiting == 5 * DAY


def test_weekends_are_in_the_time_zone_of_the_player_to_move() -> None:
    # In Tokyo the weekend starts nine hours before it does in UTC.
    utc = board(weekends_off=True, nag_days=10, forfeit_days=20)
    tokyo = dataclasses.replace(utc, timezones=("UTC", "Asia/Tokyo"))
    at = START + 6 * DAY  # Sunday noon UTC
    waited_utc, waited_tokyo = decide_clock(utc, at), decide_clock(tokyo, at)
    assert waited_utc is None and waited_tokyo is None
    later = START + 14 * DAY  # two weeks: ten days on either clock
    due_utc, due_tokyo = decide_clock(utc, later), decide_clock(tokyo, later)
    assert isinstance(due_utc, ReminderDue) and isinstance(due_tokyo, ReminderDue)
    assert due_utc.waiting == due_tokyo.waiting == 10 * DAY


def test_a_game_already_over_has_nothing_due() -> None:
    clock = board(active=False)
    for days in (0, 3, 10, 100):
        assert decide_clock(clock, START + days * DAY) is None


# --- a lock-out, a vacation over -----------------------------------------------------------


def test_a_lock_out_takes_a_day_of_vacation_while_there_are_days_left() -> None:
    hold = lock_out_hold(BOB.id, None, 14, 10, NOW)
    assert hold == LockOutHold(VacationStarted(BOB.id, NOW, 1, None), NOW + DAY, 3)


@pytest.mark.parametrize("taken", [14, 15, 30])
def test_a_lock_out_holds_nothing_beyond_the_allowance(taken: int) -> None:
    assert lock_out_hold(BOB.id, None, 14, taken, NOW) is None


def test_a_vacation_over_tells_the_days_left() -> None:
    assert vacation_over_left(NOW - HOUR, 14, 4, NOW) == 10
    assert vacation_over_left(None, 14, 20, NOW) == 0
    # On a newer vacation already: not told.
    assert vacation_over_left(NOW + DAY, 14, 4, NOW) is None


# --- a loss on time ------------------------------------------------------------------------


def _at_forfeit(votes: tuple[OpenVote, ...] = ()) -> BoardState:
    return snapshot(["e4"], votes=votes, rated=False).state


def test_the_player_out_of_time_loses() -> None:
    state = _at_forfeit()
    decision, offered_by = decide_loss_on_time(state, BOB.id, NOW)
    assert offered_by is None
    (change,) = decision.changes
    assert isinstance(change, GameFinished)
    assert (change.winner, change.termination) == (WHITE, Termination.FORFEIT)
    assert change.expected_ply == state.ply
    assert decision.state_after.winner == WHITE and not decision.state_after.active


def test_the_opponents_open_draw_offer_is_accepted_instead() -> None:
    state = _at_forfeit((OpenVote("draw", ALICE.id, 1),))
    decision, offered_by = decide_loss_on_time(state, BOB.id, NOW)
    assert offered_by == state.white
    (change,) = decision.changes
    assert isinstance(change, GameFinished)
    assert (change.winner, change.termination) == (None, Termination.DRAW_AGREED)


def test_their_own_draw_offer_does_not_save_them() -> None:
    state = _at_forfeit((OpenVote("draw", BOB.id, 1), OpenVote("undo", ALICE.id, 1)))
    decision, offered_by = decide_loss_on_time(state, BOB.id, NOW)
    assert offered_by is None
    (change,) = decision.changes
    assert isinstance(change, GameFinished) and change.termination == Termination.FORFEIT


# --- the scheduler and the board mail's deadlines agree ------------------------------------


def _clock_of(state: BoardState) -> BoardClock:
    assert state.to_move is not None
    seat = state.seat(state.to_move)
    return BoardClock(
        number=state.number,
        ply=state.ply,
        to_move=state.to_move,
        player_id=seat.id,
        white_id=state.white.id,
        created_at=state.created_at,
        last_move_at=state.moves[-1].played_at if state.moves else None,
        last_reminder_at=state.last_reminder_at,
        vacation_until=seat.vacation_until,
        nag_days=state.nag_days,
        forfeit_days=state.forfeit_days,
        total_days=state.total_days,
        timebank_hours=state.timebank_hours,
        increment_hours=state.increment_hours,
        weekends_off=state.weekends_off,
        timezones=(state.white.timezone, state.black.timezone),
        moves=tuple((m.player_id, m.played_at) for m in state.moves),
    )


@pytest.mark.parametrize("length", [1, 2, 3, 6])
@pytest.mark.parametrize(
    ("nag", "forfeit", "total", "bank", "weekends_off"),
    [
        (7, 28, None, None, False),
        (1, 3, None, None, False),
        (7, 3, None, None, False),
        (3, 10, 4, None, False),
        (3, 20, None, 100, False),
        (2, 9, None, None, True),
        (5, 30, 12, 200, True),
    ],
)
def test_the_reminder_and_the_loss_come_when_the_board_mail_says(
    length: int,
    nag: int,
    forfeit: int,
    total: int | None,
    bank: int | None,
    weekends_off: bool,
) -> None:
    state = snapshot(random_game(length, length), rated=False).state.replace(
        nag_days=nag,
        forfeit_days=forfeit,
        total_days=total,
        timebank_hours=bank,
        increment_hours=None if bank is None else 12,
        weekends_off=weekends_off,
    )
    last = state.moves[-1].played_at
    due = deadlines(state, last)
    assert due is not None and due.reminder is not None
    clock = _clock_of(state)
    assert decide_clock(clock, due.reminder - MINUTE) is None
    assert isinstance(decide_clock(clock, due.reminder), ReminderDue)
    # Reminded then: the time runs out when the board mail says the game is lost.
    reminded = _clock_of(state.replace(last_reminder_at=due.reminder))
    after = deadlines(state.replace(last_reminder_at=due.reminder), due.reminder)
    assert after is not None
    assert not isinstance(decide_clock(reminded, after.forfeit - MINUTE), TimeRanOut)
    assert isinstance(decide_clock(reminded, after.forfeit), TimeRanOut)


# --- the time left, one function for every limit ------------------------------------------


def side(pid: int) -> str:
    return WHITE if pid == ALICE.id else BLACK


@pytest.mark.parametrize("seed", range(40))
def test_the_time_left_is_the_nearest_limit(seed: int) -> None:
    rng = random.Random(seed)
    moments, moment = [], START
    for number in range(rng.randrange(0, 8)):
        moment += rng.randrange(1, 80) * HOUR
        moments.append((ALICE.id if number % 2 == 0 else BOB.id, moment))
    to_move = WHITE if len(moments) % 2 == 0 else BLACK
    now = moment + rng.randrange(0, 200) * HOUR
    stops = {BLACK: [(START + 10 * HOUR, START + 40 * HOUR)]}
    forfeit, total = rng.randrange(3, 15), rng.choice([None, 5, 10, 20])
    bank = rng.choice([None, TimeBank(100 * HOUR, 20 * HOUR), TimeBank(72 * HOUR, HOUR)])
    left = time_left(START, moments, side, stops, to_move, moment, now, forfeit, total, bank)
    limits = [("idle", timedelta(days=forfeit) - left.waiting)]
    if total is not None:
        used = thinking_time(START, moments, side, stops, to_move, now)[to_move]
        limits.append(("total", timedelta(days=total) - used))
    if bank is not None:
        banked = bank_left(START, moments, side, stops, to_move, now, bank)[to_move]
        limits.append(("bank", banked))
    nearest = min(value for _, value in limits)
    assert left.left == nearest
    # On a tie, the first limit of the list is the reason.
    assert left.why[0] == next(name for name, value in limits if value == nearest)
