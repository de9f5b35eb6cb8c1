"""`pbm-emergo moves` and `pbm-emergo board`: the rules engine from the command line."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from pbm_emergo.cli import main
from pbm_emergo.rules import CELLS, Game, render_board

WORKED_TO_CAPTURE = ["e4", "d6", "c4"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_moves_from_the_start_lists_the_40_first_moves_sorted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "moves")
    assert status == 0
    assert out.splitlines() == [c for c in CELLS if c != "e5"]


def test_moves_after_moves_matches_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "moves", "E4", "d6", "c4")
    assert status == 0
    expected = Game.from_moves(WORKED_TO_CAPTURE).position.legal_moves()
    assert out.splitlines() == [str(m) for m in expected]


def test_an_illegal_move_exits_2_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "moves", "e4", "d4")
    assert status == 2 and out == ""
    assert err.startswith("pbm-emergo: move 2 (d4): A man entered on d4 could be captured")


def test_malformed_notation_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "moves", "z9")
    assert status == 2
    assert "'z9' is not a move" in err


def test_moves_json_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "moves", "--json", "e4", "d6")
    assert status == 0
    data = json.loads(out)
    assert data["moves"] == ["e4", "d6"]
    assert data["to_move"] == "white"
    assert data["in_hand"] == {"white": 11, "black": 11}
    assert data["columns"] == {
        "d6": {"owner": "black", "own": 1, "prisoners": 0},
        "e4": {"owner": "white", "own": 1, "prisoners": 0},
    }
    assert data["outcome"] is None
    assert data["ply"] == 2
    assert data["position"] == "o 11 11 2 d6=x1,e4=o1"
    assert len(data["legal_moves"]) == len(Game.from_moves(["e4", "d6"]).position.legal_moves())


def test_moves_json_of_a_finished_game_has_its_outcome(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rng = random.Random(3)
    game = Game()
    while game.outcome() is None:
        game.play(rng.choice(game.position.legal_moves()))
    outcome = game.outcome()
    assert outcome is not None
    status, out, _ = run(capsys, "moves", "--json", *map(str, game.moves))
    data = json.loads(out)
    assert status == 0
    assert data["outcome"] == {"winner": outcome.winner, "reason": str(outcome.termination)}
    assert data["legal_moves"] == []


def test_board_prints_the_diamond_and_whose_move_it_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "board", "--white", "alice", "--black", "bob", "e4", "d6")
    assert status == 0
    position = Game.from_moves(["e4", "d6"]).position
    assert out == render_board(position, "alice", "bob") + "\nMove 3: white to play.\n"


def test_the_console_script_and_python_m_agree() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pbm_emergo", "moves", "e4"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        str(m) for m in Game.from_moves(["e4"]).position.legal_moves()
    ]
