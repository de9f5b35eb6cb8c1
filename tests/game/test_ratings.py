"""Ratings on values: provisional by the rating deviation, a standing after a rated game, the
lines of a board mail, and resigning every board of a player who leaves (the rating model's
results come in as values: here a made-up model; the Glicko-2 numbers are tested in
tests/ratings)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pbm_emergo.game.board import BLACK, WHITE, Seat
from pbm_emergo.game.changes import GameFinished
from pbm_emergo.game.events import BoardChanged
from pbm_emergo.game.numbers import (
    PAIR_RATED_DAYS,
    PROVISIONAL_DEVIATION,
    RATED_MOVES_EACH,
    START_DEVIATION,
)
from pbm_emergo.game.play import resign_all
from pbm_emergo.game.ratings import (
    GameRating,
    Rated,
    Standing,
    counts_for_rating,
    is_provisional,
)
from pbm_emergo.rules import Termination
from tests.game.boards import ALICE, BOB, NOW, random_game, snapshot


def model(white: Rated, black: Rated, winner: str | None) -> GameRating:
    """A made-up rating model: the winner takes 10 points from the loser, a draw moves
    nothing; each player's deviation shrinks by a tenth."""
    change = {WHITE: 10, BLACK: -10, None: 0}[winner]
    return GameRating(
        white.rating,
        black.rating,
        change,
        -change,
        white.deviation * 0.9,
        black.deviation * 0.9,
        white.volatility,
        black.volatility,
    )


def test_a_rating_is_provisional_while_its_deviation_is_above_the_threshold() -> None:
    assert PROVISIONAL_DEVIATION == 110
    assert is_provisional(Standing(1600, 0))  # a newcomer: the start deviation, 350
    assert START_DEVIATION == 350
    assert is_provisional(Standing(1600, 12, deviation=110.5))
    assert not is_provisional(Standing(1600, 12, deviation=110.0))
    # Many games do not make a rating established by themselves: only its deviation does.
    assert is_provisional(Standing(1600, 40, deviation=180.0))


def test_a_standing_after_a_game_takes_its_sides_numbers() -> None:
    rating = GameRating(1600, 1650, 25, -25, 280.0, 300.0, 0.059, 0.061)
    assert Standing(1600, 3).after(rating, white=True) == Standing(1625, 4, 280.0, 0.059)
    assert Standing(1650, 0).after(rating, white=False) == Standing(1625, 1, 300.0, 0.061)
    # A history line knows the ratings only: the deviation stays as it was.
    old = GameRating(1600, 1650, 25, -25)
    assert Standing(1600, 3, 120.0).after(old, white=True) == Standing(1625, 4, 120.0)


def test_resigning_every_board_carries_the_ratings_from_one_to_the_next() -> None:
    carol = Seat(3, "carol", 1500, "carol@example.org", rated_games=2)
    boards = [
        snapshot(random_game(1, 9)),
        snapshot(random_game(2, 8), white=BOB, black=ALICE),
        snapshot(random_game(3, 10), black=carol),
        snapshot(random_game(4, 9), rated=False),
    ]
    decisions = resign_all(boards, ALICE.id, "alice signed off.", NOW, model)
    alice = Standing(ALICE.rating, ALICE.rated_games, ALICE.deviation, ALICE.volatility)
    bob = Standing(BOB.rating, BOB.rated_games, BOB.deviation, BOB.volatility)
    first = model(alice, bob, BLACK)
    alice = alice.after(first, white=True)
    # The second board is the same pair's: its first game just moved ratings, so it does not.
    third = model(alice, Standing(carol.rating, carol.rated_games), BLACK)
    assert (third.white_before, third.white_deviation) == (1590, START_DEVIATION * 0.81)
    expected = [
        (BLACK, first), (WHITE, None), (BLACK, third), (BLACK, None),
    ]  # fmt: skip
    for board, decision, (winner, rating) in zip(boards, decisions, expected, strict=True):
        assert decision.changes == (
            GameFinished(
                101, winner, Termination.RESIGNED, NOW, expected_rating=rating,
                rated=rating is not None, expected_ply=board.state.ply,
            ),
        )  # fmt: skip
        assert decision.events == (BoardChanged(decision.state_after, "alice signed off."),)
        assert not decision.state_after.active


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=8, max_value=30))
def test_a_finished_state_moves_the_seats_by_the_rating(seed: int, length: int) -> None:
    moves = random_game(seed, length)
    assume(len(moves) >= 2 * RATED_MOVES_EACH)
    board = snapshot(moves)
    (decision,) = resign_all([board], BOB.id, "bye", NOW, model)
    change = decision.changes[0]
    assert isinstance(change, GameFinished) and change.expected_rating is not None
    after = decision.state_after
    rating = change.expected_rating
    assert after.white == dataclasses.replace(
        ALICE, rating=ALICE.rating + rating.white_change, rated_games=ALICE.rated_games + 1,
        deviation=ALICE.deviation * 0.9,
    )  # fmt: skip
    assert after.black.rating == BOB.rating + rating.black_change
    assert after.black.deviation == BOB.deviation * 0.9


DAY = timedelta(days=1)


@pytest.mark.parametrize(
    ("white_moves", "black_moves", "pair_rated_at", "counts"),
    [
        (4, 4, None, True),  # four moves each, the pair's first rated game: rated
        (30, 29, None, True),
        (4, 3, None, False),  # one move short, either side: unrated
        (3, 4, None, False),
        (1, 1, None, False),  # the farm: a move each, then a resignation
        (0, 0, None, False),
        (10, 10, NOW - 7 * DAY, True),  # the pair's last rated game a week ago: rated
        (10, 10, NOW - 30 * DAY, True),
        (10, 10, NOW - 7 * DAY + timedelta(seconds=1), False),  # within the week: unrated
        (10, 10, NOW - DAY, False),
        (10, 10, NOW, False),
        (2, 2, NOW - 30 * DAY, False),  # both conditions: each must hold
    ],
)
def test_a_game_counts_for_rating_after_enough_moves_once_a_week_per_pair(
    white_moves: int, black_moves: int, pair_rated_at: datetime | None, counts: bool
) -> None:
    assert (RATED_MOVES_EACH, PAIR_RATED_DAYS) == (4, 7)
    assert counts_for_rating(white_moves, black_moves, pair_rated_at, NOW) is counts


@pytest.mark.parametrize("length", range(0, 12))
def test_a_short_game_ends_unrated(length: int) -> None:
    moves = random_game(11, length)
    assert len(moves) == length
    (decision,) = resign_all([snapshot(moves)], BOB.id, "bye", NOW, model)
    [change] = decision.changes
    assert isinstance(change, GameFinished)
    counts = length >= 2 * RATED_MOVES_EACH  # alice moves first: 8 plies make four each
    assert change.rated is counts and (change.expected_rating is not None) is counts
    after = decision.state_after
    assert after.rated is counts and (after.rating is not None) is counts
    if not counts:  # no rating moves, no rated game counted
        assert (after.white, after.black) == (ALICE, BOB)


def test_a_pair_rated_within_the_week_ends_unrated_even_when_long() -> None:
    long = random_game(5, 20)
    recent = snapshot(long)
    recent = dataclasses.replace(recent, state=recent.state.replace(pair_rated_at=NOW - 6 * DAY))
    (decision,) = resign_all([recent], ALICE.id, "bye", NOW, model)
    assert decision.changes == (
        GameFinished(
            101, BLACK, Termination.RESIGNED, NOW, expected_rating=None, rated=False,
            expected_ply=recent.state.ply,
        ),
    )
    assert not decision.state_after.rated
    a_week = dataclasses.replace(recent, state=recent.state.replace(pair_rated_at=NOW - 7 * DAY))
    (decision,) = resign_all([a_week], ALICE.id, "bye", NOW, model)
    assert decision.changes == (
        GameFinished(
            101, BLACK, Termination.RESIGNED, NOW,
            expected_rating=model(ALICE, BOB, BLACK), rated=True,
            expected_ply=a_week.state.ply,
        ),
    )


def test_resigning_two_boards_of_one_pair_rates_only_the_first() -> None:
    boards = [snapshot(random_game(8, 12)), snapshot(random_game(9, 12), white=BOB, black=ALICE)]
    first, second = resign_all(boards, ALICE.id, "alice signed off.", NOW, model)
    assert [c.rated for c in first.changes + second.changes if isinstance(c, GameFinished)] == [
        True,
        False,
    ]
