"""The Glicko-2 model (pbm_emergo.ratings, the glicko2 library) on values: who gains, by how
much against whom, and how the deviation says how sure a rating is."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbm_emergo.game.board import BLACK, WHITE
from pbm_emergo.game.numbers import START_DEVIATION, START_VOLATILITY
from pbm_emergo.game.ratings import Standing, is_provisional
from pbm_emergo.ratings import game_rating, outcomes
from pbm_emergo.views.board_text import rating_lines
from pbm_emergo.views.i18n import speaking

NEWCOMER = Standing(1600, 0)

standings = st.builds(
    Standing,
    st.integers(min_value=800, max_value=2600),
    st.integers(min_value=0, max_value=60),
    st.floats(min_value=45.0, max_value=START_DEVIATION),
    st.floats(min_value=0.04, max_value=0.08),
)
winners = st.sampled_from([WHITE, BLACK, None])


def test_two_newcomers_one_game() -> None:
    won = game_rating(NEWCOMER, NEWCOMER, WHITE)
    with speaking("en"):
        assert rating_lines(won, "alice", "bob") == [
            "alice 1600 -> 1762 (+162)",
            "bob 1600 -> 1438 (-162)",
        ]
    assert won.white_deviation is not None and round(won.white_deviation) == 290
    assert won.white_deviation == won.black_deviation
    drawn = game_rating(NEWCOMER, NEWCOMER, None)
    assert (drawn.white_change, drawn.black_change) == (0, 0)


@settings(max_examples=150, deadline=None)
@given(standings, standings, winners)
def test_the_winner_gains_the_loser_loses_and_the_sides_are_symmetric(
    white: Standing, black: Standing, winner: str | None
) -> None:
    rating = game_rating(white, black, winner)
    assert (rating.white_before, rating.black_before) == (white.rating, black.rating)
    if winner == WHITE:
        assert rating.white_change >= 0 >= rating.black_change
    elif winner == BLACK:
        assert rating.white_change <= 0 <= rating.black_change
    swapped = game_rating(
        black, white, None if winner is None else (BLACK if winner == WHITE else WHITE)
    )
    assert (swapped.white_change, swapped.black_change) == (
        rating.black_change, rating.white_change,
    )  # fmt: skip
    assert rating.white_deviation is not None and rating.black_deviation is not None


def test_an_uncertain_rating_moves_more_than_a_sure_one() -> None:
    sure = Standing(1600, 40, deviation=60.0)
    unsure = Standing(1600, 2, deviation=300.0)
    opponent = Standing(1600, 40, deviation=60.0)
    assert game_rating(unsure, opponent, WHITE).white_change > 3 * (
        game_rating(sure, opponent, WHITE).white_change
    )
    # Beating a much stronger player is worth more than beating a weaker one.
    strong, weak = Standing(1900, 40, 60.0), Standing(1300, 40, 60.0)
    assert (
        game_rating(sure, strong, WHITE).white_change > game_rating(sure, weak, WHITE).white_change
    )


def test_a_newcomer_is_provisional_for_about_ten_games() -> None:
    player, opponent = NEWCOMER, Standing(1600, 50, deviation=60.0, volatility=START_VOLATILITY)
    games = 0
    while is_provisional(player):
        rating = game_rating(player, opponent, WHITE if games % 2 else BLACK)
        player = player.after(rating, white=True)
        games += 1
    assert 8 <= games <= 12


def test_the_outcomes_of_a_board_are_its_three_results() -> None:
    found = dict(outcomes(NEWCOMER, Standing(1700, 10, 150.0)))
    assert set(found) == {WHITE, BLACK, None}
    assert found[WHITE].white_change > found[None].white_change > found[BLACK].white_change
