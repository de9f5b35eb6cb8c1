"""Asking for a finished game's analysis, on values: who may ask, a request already
waiting, the daily limit, and how long the analysis takes to come. No database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from pbm_emergo.game.analysis import (
    DAY,
    AlreadyQueued,
    AnalysisAsk,
    AnalysisLimits,
    AnalysisQueued,
    analysis_refusal,
    decide_analysis_request,
    seconds_per_move,
    wait_minutes,
)
from pbm_emergo.game.board_changes import AnalysisRequested
from pbm_emergo.rules.reasons import Reason

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
LIMITS = AnalysisLimits(per_day=3, seconds_per_move=1.0, seconds_per_game=60.0)
ALICE_ASKS = AnalysisAsk(
    board=101, active=False, white_id=1, black_id=2, white="alice", black="bob", ply=40,
    player_id=1, userid="alice",
)


def test_only_a_finished_game_of_ones_own() -> None:
    assert analysis_refusal(ALICE_ASKS) is None
    assert analysis_refusal(replace(ALICE_ASKS, player_id=2, userid="bob")) is None
    active = analysis_refusal(replace(ALICE_ASKS, active=True))
    assert isinstance(active, Reason) and active.code == "analysis_active"
    stranger = analysis_refusal(replace(ALICE_ASKS, player_id=3, userid="carol"))
    assert isinstance(stranger, Reason) and str(stranger) == (
        "carol did not play on board 101, and only its two players (alice and bob) may ask "
        "for its analysis."
    )


def test_a_request_is_queued_with_what_it_stores() -> None:
    decided = decide_analysis_request(ALICE_ASKS, [], 1, LIMITS, NOW, "alice@example.org")
    assert isinstance(decided, AnalysisQueued)
    assert decided.change == AnalysisRequested(101, 1, "alice@example.org", NOW, 3, NOW - DAY)
    assert (decided.number, decided.limit) == (2, 3)


def test_a_request_already_waiting_counts_nothing_more() -> None:
    waiting = [(105, 3), (101, 1)]
    # Even at the limit: the request waits already, nothing more is counted.
    decided = decide_analysis_request(ALICE_ASKS, waiting, 3, LIMITS, NOW, "a@example.org")
    assert decided == AlreadyQueued(wait_minutes(LIMITS, 40, 1))
    # The other player's request of the same board is not this player's.
    bobs = decide_analysis_request(ALICE_ASKS, [(101, 2)], 0, LIMITS, NOW, "a@example.org")
    assert isinstance(bobs, AnalysisQueued)


@pytest.mark.parametrize(("per_day", "used"), [(3, 3), (3, 7), (0, 0), (-1, 0)])
def test_over_the_daily_limit(per_day: int, used: int) -> None:
    limits = AnalysisLimits(per_day, 1.0, 60.0)
    decided = decide_analysis_request(ALICE_ASKS, [], used, limits, NOW, "a@example.org")
    assert isinstance(decided, Reason) and decided.code == "analysis_over_limit"
    assert dict(decided.values)["num"] == max(0, per_day)


def test_the_time_of_a_position_shares_the_game_cap() -> None:
    assert seconds_per_move(LIMITS, 10) == 1.0  # 11 positions fit in 60 s at 1 s each
    assert seconds_per_move(LIMITS, 119) == 0.5  # 120 positions share the 60 s
    assert seconds_per_move(AnalysisLimits(1, 1.0, 0.0), 40) == 0.01  # never nothing


@pytest.mark.parametrize(
    ("ply", "before", "minutes"),
    [
        (0, 0, 1),  # at least a minute
        (40, 0, 2),  # 41 s, and half again for the robots' moves in between: 61.5 s
        (40, 2, 5),  # 41 + 2 * 60 s = 161 s, times 1.5: 241.5 s
        (200, 0, 2),  # the cap of a game: 60 s, times 1.5
    ],
)
def test_how_long_an_analysis_takes_to_come(ply: int, before: int, minutes: int) -> None:
    assert wait_minutes(LIMITS, ply, before) == minutes


def test_the_boards_waiting_before_are_other_boards() -> None:
    waiting = [(101, 2), (105, 3), (105, 4), (107, 5)]
    decided = decide_analysis_request(ALICE_ASKS, waiting, 0, LIMITS, NOW, "a@example.org")
    assert isinstance(decided, AnalysisQueued)
    assert decided.minutes == wait_minutes(LIMITS, 40, 2)  # 105 and 107, not 101 itself

