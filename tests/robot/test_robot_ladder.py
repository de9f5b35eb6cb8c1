"""The measured ladder: the Bradley-Terry fit, the strong robot's budget, varied games, and
the bench that plays them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pbm_emergo.robot import LEVELS, think
from pbm_emergo.robot.ladder import LADDER, fit, ladder_text, ladder_texts, win_probability
from pbm_emergo.robot.match import (
    opening,
    parse_player,
    play_game,
    player_budget,
    player_level,
    player_name,
)
from pbm_emergo.rules import Game

ROOT = Path(__file__).resolve().parents[2]

# --- the fit ------------------------------------------------------------------------------


def test_a_76_percent_score_is_about_200_points() -> None:
    assert win_probability(200) == pytest.approx(0.76, abs=0.001)
    ratings = fit({("a", "r"): (760, 1000)}, anchor="r")
    assert ratings["r"].rating == 0
    assert ratings["a"].rating == pytest.approx(200, abs=3)
    # The same pair the other way round gives the same rating.
    assert fit({("r", "a"): (240, 1000)}, anchor="r")["a"].rating == pytest.approx(
        ratings["a"].rating
    )


def test_a_chain_of_scores_gives_the_order_and_the_differences() -> None:
    # Each player scores 76% against the next weaker one: about 200 points a step.
    scores = {("1", "r"): (760, 1000), ("2", "1"): (760, 1000), ("3", "2"): (760, 1000)}
    ratings = fit(scores, anchor="r")
    order = sorted(ratings, key=lambda name: ratings[name].rating)
    assert order == ["r", "1", "2", "3"]
    assert ratings["1"].rating == pytest.approx(200, abs=5)
    assert ratings["2"].rating - ratings["1"].rating == pytest.approx(200, abs=5)
    assert ratings["3"].rating == pytest.approx(600, abs=10)
    # Further from the anchor, less certain.
    widths = [ratings[n].high - ratings[n].low for n in ("1", "2", "3")]
    assert widths == sorted(widths) and widths[0] < widths[2]


def test_symmetric_results_give_equal_ratings() -> None:
    scores = {("a", "r"): (30, 40), ("b", "r"): (30, 40), ("a", "b"): (10, 20)}
    ratings = fit(scores, anchor="r")
    assert ratings["a"].rating == pytest.approx(ratings["b"].rating, abs=1e-6)
    assert ratings["a"].low == pytest.approx(ratings["b"].low, abs=1e-6)
    assert ratings["a"].rating > 0


def test_intervals_shrink_with_more_games() -> None:
    few = fit({("a", "r"): (15, 20)}, anchor="r")["a"]
    many = fit({("a", "r"): (150, 200)}, anchor="r")["a"]
    assert few.low < many.low < many.rating < many.high < few.high
    assert (many.high - many.low) < (few.high - few.low) / 2.5
    assert few.low < few.rating < few.high


def test_all_wins_stay_finite_and_grow_with_the_games() -> None:
    ten = fit({("a", "r"): (10, 10)}, anchor="r")["a"]
    hundred = fit({("a", "r"): (100, 100)}, anchor="r")["a"]
    # One virtual draw: n wins read as n + 0.5 out of n + 1.
    assert win_probability(ten.rating) == pytest.approx(10.5 / 11, abs=1e-6)
    assert 0 < ten.rating < hundred.rating < 2000
    assert ten.low < ten.rating < ten.high


def test_players_not_connected_to_the_anchor_are_refused() -> None:
    with pytest.raises(ValueError, match="connect"):
        fit({("a", "r"): (5, 10), ("b", "c"): (5, 10)}, anchor="r")
    with pytest.raises(ValueError):
        fit({("a", "r"): (11, 10)}, anchor="r")


# --- the table shown to players -----------------------------------------------------------


def test_the_robot_accounts_have_a_ladder_rating_and_people_none() -> None:
    assert sorted(LADDER) == ["robot1", "robot2", "robot3"]
    for entry in LADDER.values():
        assert entry.low <= entry.rating <= entry.high
    entry = LADDER["robot3"]
    assert ladder_text("Robot3") == f"ladder Elo {entry.rating} ({entry.low}-{entry.high})"
    assert ladder_text("alice") is None
    assert ladder_texts(["alice", "robot1"]) == {"robot1": ladder_text("robot1")}


# --- the strong robot uses its budget -----------------------------------------------------


def test_the_strong_robots_node_allowance_follows_its_budget() -> None:
    assert LEVELS[3].node_allowance(10.0) == 60_000  # the server's default, as before
    assert LEVELS[3].node_allowance(2.5) == 15_000
    assert LEVELS[1].node_allowance(2.5) == LEVELS[1].node_allowance(10.0) == 20_000
    assert LEVELS[2].node_allowance(2.5) == LEVELS[2].node_allowance(60.0) == 30_000
    game = Game.from_moves(["e4", "e6", "f4", "d6"])
    quarter = think(game.position, 3, 2.5)
    full = think(game.position, 3, 10.0)
    assert quarter.nodes <= 15_001 < full.nodes <= 60_001
    assert quarter.depth < full.depth


# --- varied games -------------------------------------------------------------------------


def test_players_at_a_fraction_of_the_budget() -> None:
    assert parse_player("robot3/4") == "3/4" and parse_player("3") == "3"
    assert player_name("3/4") == "robot3/4"
    assert player_level("3/4") == 3 and player_budget("3/4", 10.0) == 2.5
    assert player_budget("2", 10.0) == 10.0
    for bad in ("3/0", "4/2", "3/x"):
        with pytest.raises(ValueError):
            parse_player(bad)


@pytest.mark.usefixtures("search_clock_stands_still")
def test_pairs_of_games_share_a_seeded_opening_with_colours_swapped() -> None:
    assert opening(5) == opening(5) and len(opening(5)) == 4
    assert len({tuple(map(str, opening(seed))) for seed in range(6)}) > 1
    # robot3 against itself (a small budget to be quick): no noise, yet varied games.
    games = [play_game("3", "3/2", number, budget_s=0.1).result for number in (1, 2, 3)]
    first, second, third = games
    assert first.a_white and not second.a_white and third.a_white
    assert first.moves[:4] == second.moves[:4] != third.moves[:4]
    assert first.moves != third.moves
    assert play_game("3", "3/2", 1, budget_s=0.1).result == first


# --- the bench ----------------------------------------------------------------------------


@pytest.mark.slow
def test_the_bench_gives_the_same_scores_whatever_the_jobs() -> None:
    def run(jobs: int) -> str:
        done = subprocess.run(
            [sys.executable, "bench/robot.py", "--random-robot1", "2", "--robot1-robot2", "2",
             "--robot2-robot3", "0", "--robot3-quarter", "0", "--jobs", str(jobs), "--quiet"],
            cwd=ROOT, capture_output=True, text=True, check=True, timeout=300,
        )
        return done.stdout

    one, two = run(1), run(2)
    scores = re.findall(r"^(random vs robot1|robot1 vs robot2): .*$", one, re.MULTILINE)
    assert scores == ["random vs robot1", "robot1 vs robot2"]
    assert re.findall(r"^.* vs .*: \d+ games.*$", one, re.MULTILINE) == re.findall(
        r"^.* vs .*: \d+ games.*$", two, re.MULTILINE
    )
    assert re.search(r"^  robot2 +\d+  \(-?\d+ to \d+\)$", one, re.MULTILINE)
    assert '"robot1": LadderEntry(' in one and '"robot2": LadderEntry(' in one
