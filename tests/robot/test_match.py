"""``pbm-emergo robot-match`` and the match module behind it."""

from __future__ import annotations

import re

import pytest

from pbm_emergo.cli import main
from pbm_emergo.robot.match import describe, parse_player, play_match


def test_robot_match_prints_score_interval_times_and_speed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["robot-match", "1", "random", "--games", "2", "--budget", "1", "-v"]) == 0
    out = capsys.readouterr().out
    assert "game 1: robot1 White" in out and "game 2: robot1 Black" in out
    assert re.search(r"robot1 vs random: 2 games, robot1 \+\d+ =\d+ -\d+, score [\d.]+% "
                     r"\(95% interval [\d.]+%-[\d.]+%\)", out)
    assert re.search(r"robot1: \d+ moves, mean [\d.]+ s, median [\d.]+ s, worst [\d.]+ s a "
                     r"move; [\d,]+ nodes/s", out)


def test_robot_match_refuses_unknown_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["robot-match", "4", "random"]) == 2
    assert "not a player" in capsys.readouterr().err


@pytest.mark.usefixtures("search_clock_stands_still")
def test_players_and_the_interval() -> None:
    assert [parse_player(p) for p in ("1", "robot2", "RANDOM")] == ["1", "2", "random"]
    result = play_match("2", "random", 2, budget_s=1.0)
    assert result.score_a == 1.0
    low, high = result.interval()
    assert 0.3 < low < 1.0 and high == 1.0
    assert describe(result)[0].startswith("robot2 vs random: 2 games, robot2 +2 =0 -0")
