"""The engine's analysis of a game (pbm_emergo.robot.analysis): thresholds, the verdict on a
constructed game with a blunder in it, determinism at a fixed node budget, storage data."""

from __future__ import annotations

import json

import pytest

from pbm_emergo.robot.analysis import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    Report,
    analyse,
    classify,
    men,
)
from pbm_emergo.robot.search import WIN

# A game of random moves (seed 0) up to the move where Eks lets a column be taken: 18. c3
# leaves Ohs g3xg5xi5 and more (found by the search at this node budget).
MOVES = ["f2", "f6", "b5", "e4", "e7", "e5", "d8", "h5", "d3", "f8", "e1", "g7", "c6", "g6",
         "c4", "f4", "c5", "c3"]  # fmt: skip
NODES = 3000


@pytest.mark.parametrize(
    ("loss", "label"),
    [(0, ""), (INACCURACY - 1, ""), (INACCURACY, "inaccuracy"), (MISTAKE - 1, "inaccuracy"),
     (MISTAKE, "mistake"), (BLUNDER - 1, "mistake"), (BLUNDER, "blunder"), (5000, "blunder")],
)  # fmt: skip
def test_thresholds(loss: int, label: str) -> None:
    assert classify(loss) == label


def test_the_blunder_of_a_constructed_game_is_found() -> None:
    report = analyse(MOVES, seconds_per_move=60.0, node_limit=NODES)
    assert [v.number for v in report.verdicts] == list(range(1, len(MOVES) + 1))
    assert [v.side for v in report.verdicts] == [0, 1] * (len(MOVES) // 2)
    last = report.verdicts[-1]
    assert last.played == "c3" and last.side == 1
    assert last.loss >= BLUNDER and last.label == "blunder"
    assert last.best != "c3" and last.line[0] == last.best and 1 < len(last.line) <= 4
    assert last.best_score - last.score >= BLUNDER
    assert report.turning_point == last
    for verdict in report.verdicts:
        assert verdict.label == classify(verdict.loss)
        # A move the engine would have played loses nothing and needs no better line.
        if verdict.played == verdict.best:
            assert verdict.loss == 0 and verdict.line == ()
    black = report.summary(1)
    assert black.moves == 9 and black.blunders >= 1
    assert black.average_loss == round(sum(v.loss for v in report.verdicts[1::2]) / 9)


def test_deterministic_at_a_fixed_node_budget() -> None:
    first = analyse(MOVES[:10], seconds_per_move=60.0, node_limit=NODES)
    second = analyse(MOVES[:10], seconds_per_move=60.0, node_limit=NODES)
    assert first.verdicts == second.verdicts and first.nodes == second.nodes


def test_the_report_survives_storage_as_json_data() -> None:
    report = analyse(MOVES[:6], seconds_per_move=60.0, node_limit=1000)
    again = Report.from_data(json.loads(json.dumps(report.to_data())))
    assert again.verdicts == report.verdicts and again.nodes == report.nodes


def test_values_for_people() -> None:
    assert men(135) == "+1.35" and men(-40) == "-0.40" and men(0) == "+0.00"
    assert men(WIN - 7) == "wins by force" and men(-WIN + 3) == "loses by force"
