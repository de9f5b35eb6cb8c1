"""Subscriptions on values: what subscribing to a board (or every board) and ending it do
to a player's subscriptions, and what is refused. No database."""

from __future__ import annotations

import pytest

from pbm_emergo.game.subscriptions import (
    Subscribed,
    Unsubscribed,
    decide_subscribe,
    decide_unsubscribe,
    in_order,
)
from pbm_emergo.rules.reasons import Reason


@pytest.mark.parametrize(
    ("watched", "number", "expected"),
    [
        ((), 101, Subscribed(True, (101,))),
        ((105,), 101, Subscribed(True, (101, 105))),
        ((105,), None, Subscribed(True, (None, 105))),
        ((101,), 101, Subscribed(False, (101,))),
        ((None,), 101, Subscribed(False, (None,))),  # every board covers it
        ((None, 101), None, Subscribed(False, (None, 101))),
    ],
)
def test_subscribing(
    watched: tuple[int | None, ...], number: int | None, expected: Subscribed
) -> None:
    assert decide_subscribe("carol", watched, number) == expected


def test_one_does_not_watch_ones_own_game_or_a_finished_one() -> None:
    own = decide_subscribe("alice", (), 101, plays_on=True)
    assert isinstance(own, Reason)
    assert str(own) == "alice plays on board 101 and gets its mails anyway."
    over = decide_subscribe("carol", (), 101, active=False)
    assert isinstance(over, Reason) and over.code == "subscribe_over"
    assert "'emergo show 101' sends the board" in str(over)
    # Every board: neither applies.
    assert decide_subscribe("alice", (), None, plays_on=True, active=False) == Subscribed(
        True, (None,)
    )


@pytest.mark.parametrize(
    ("watched", "number", "expected"),
    [
        ((101, 105), 101, Unsubscribed((101,), (105,))),
        ((None, 101), None, Unsubscribed((None, 101), ())),
        ((), None, Unsubscribed((), ())),
    ],
)
def test_unsubscribing(
    watched: tuple[int | None, ...], number: int | None, expected: Unsubscribed
) -> None:
    assert decide_unsubscribe("carol", watched, number) == expected


def test_a_board_is_not_left_out_of_every_board_nor_one_never_watched_ended() -> None:
    every = decide_unsubscribe("carol", (None,), 101)
    assert isinstance(every, Reason) and every.code == "unsubscribe_from_every"
    assert "'emergo unsubscribe all carol PASSWORD' ends that." in str(every)
    never = decide_unsubscribe("carol", (105,), 101)
    assert isinstance(never, Reason)
    assert str(never) == "carol is not subscribed to board 101."


def test_every_board_is_listed_first_then_the_boards_by_number() -> None:
    assert in_order([107, None, 101]) == (None, 101, 107)
