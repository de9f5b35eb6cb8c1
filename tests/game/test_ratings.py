"""The Elo changes of a finished game, and resigning every board of a player who leaves."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pbm_emergo.game.board import BLACK, WHITE, Seat
from pbm_emergo.game.changes import GameFinished
from pbm_emergo.game.events import BoardChanged
from pbm_emergo.game.numbers import PAIR_RATED_DAYS, RATED_MOVES_EACH
from pbm_emergo.game.play import resign_all
from pbm_emergo.game.ratings import (
    K_FACTOR,
    K_FACTOR_PROVISIONAL,
    PROVISIONAL_GAMES,
    GameRating,
    Standing,
    counts_for_rating,
    game_rating,
)
from pbm_emergo.rules import Termination
from tests.game.boards import ALICE, BOB, NOW, random_game, snapshot

standings = st.builds(
    Standing, st.integers(min_value=100, max_value=3000), st.integers(min_value=0, max_value=60)
)
winners = st.sampled_from([WHITE, BLACK, None])


@settings(max_examples=150, deadline=None)
@given(standings, standings, winners)
def test_the_changes_follow_the_score_and_the_k_factors(
    white: Standing, black: Standing, winner: str | None
) -> None:
    rating = game_rating(white, black, winner)
    assert (rating.white_before, rating.black_before) == (white.rating, black.rating)
    k_white = K_FACTOR_PROVISIONAL if white.rated_games < PROVISIONAL_GAMES else K_FACTOR
    k_black = K_FACTOR_PROVISIONAL if black.rated_games < PROVISIONAL_GAMES else K_FACTOR
    assert abs(rating.white_change) <= k_white and abs(rating.black_change) <= k_black
    if winner == WHITE:
        assert rating.white_change >= 0 >= rating.black_change
    elif winner == BLACK:
        assert rating.white_change <= 0 <= rating.black_change
    if k_white == k_black:  # the same K: what one wins, the other loses (rounding aside)
        assert abs(rating.white_change + rating.black_change) <= 1
    swapped = game_rating(
        black, white, None if winner is None else (BLACK if winner == WHITE else WHITE)
    )
    assert (swapped.white_change, swapped.black_change) == (
        rating.black_change, rating.white_change,
    )


def test_equal_players_draw_even_and_the_lines_say_so() -> None:
    rating = game_rating(Standing(1600, 30), Standing(1600, 30), None)
    assert rating == GameRating(1600, 1600, 0, 0)
    won = game_rating(Standing(1600, 30), Standing(1600, 30), WHITE)
    assert won == GameRating(1600, 1600, 16, -16)
    assert won.lines("alice", "bob") == ["alice 1600 -> 1616 (+16)", "bob 1600 -> 1584 (-16)"]


def test_resigning_every_board_carries_the_ratings_from_one_to_the_next() -> None:
    carol = Seat(3, "carol", 1500, "carol@example.org", rated_games=2)
    boards = [
        snapshot(random_game(1, 9)),
        snapshot(random_game(2, 8), white=BOB, black=ALICE),
        snapshot(random_game(3, 10), black=carol),
        snapshot(random_game(4, 9), rated=False),
    ]
    decisions = resign_all(boards, ALICE.id, "alice signed off.", NOW)
    alice, bob = Standing(ALICE.rating, ALICE.rated_games), Standing(BOB.rating, BOB.rated_games)
    first = game_rating(alice, bob, BLACK)
    alice = alice.after(first.white_change)
    # The second board is the same pair's: its first game just moved ratings, so it does not.
    third = game_rating(alice, Standing(carol.rating, carol.rated_games), BLACK)
    expected = [
        (BLACK, first), (WHITE, None), (BLACK, third), (BLACK, None),
    ]
    for board, decision, (winner, rating) in zip(boards, decisions, expected, strict=True):
        assert decision.changes == (
            GameFinished(
                101, winner, Termination.RESIGNED, NOW, expected_rating=rating,
                rated=rating is not None, expected_ply=board.state.ply,
            ),
        )
        assert decision.events == (BoardChanged(decision.state_after, "alice signed off."),)
        assert not decision.state_after.active


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=8, max_value=30))
def test_a_finished_state_moves_the_seats_by_the_rating(seed: int, length: int) -> None:
    moves = random_game(seed, length)
    assume(len(moves) >= 2 * RATED_MOVES_EACH)
    board = snapshot(moves)
    (decision,) = resign_all([board], BOB.id, "bye", NOW)
    change = decision.changes[0]
    assert isinstance(change, GameFinished) and change.expected_rating is not None
    after = decision.state_after
    rating = change.expected_rating
    assert after.white == dataclasses.replace(
        ALICE, rating=ALICE.rating + rating.white_change, rated_games=ALICE.rated_games + 1
    )
    assert after.black.rating == BOB.rating + rating.black_change


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
    (decision,) = resign_all([snapshot(moves)], BOB.id, "bye", NOW)
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
    recent = dataclasses.replace(
        recent, state=recent.state.replace(pair_rated_at=NOW - 6 * DAY)
    )
    (decision,) = resign_all([recent], ALICE.id, "bye", NOW)
    assert decision.changes == (
        GameFinished(
            101, BLACK, Termination.RESIGNED, NOW, expected_rating=None, rated=False,
            expected_ply=recent.state.ply,
        ),
    )
    assert not decision.state_after.rated
    a_week = dataclasses.replace(
        recent, state=recent.state.replace(pair_rated_at=NOW - 7 * DAY)
    )
    (decision,) = resign_all([a_week], ALICE.id, "bye", NOW)
    assert decision.changes == (
        GameFinished(
            101, BLACK, Termination.RESIGNED, NOW,
            expected_rating=game_rating(ALICE, BOB, BLACK), rated=True,
            expected_ply=a_week.state.ply,
        ),
    )


def test_resigning_two_boards_of_one_pair_rates_only_the_first() -> None:
    boards = [snapshot(random_game(8, 12)), snapshot(random_game(9, 12), white=BOB, black=ALICE)]
    first, second = resign_all(boards, ALICE.id, "alice signed off.", NOW)
    assert [c.rated for c in first.changes + second.changes if isinstance(c, GameFinished)] == [
        True, False
    ]
