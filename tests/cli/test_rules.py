"""`pbm-emergo moves` and `pbm-emergo board`: the rules engine from the command line."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

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


# -- pbm-emergo rules replay --------------------------------------------------------------


def test_replay_prints_the_final_position_of_a_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "board-1.emergo"
    path.write_text('[White "alice"]\n[Black "bob"]\n\n1. e4 d6 2. c4 *\n')
    status, out, err = run(capsys, "rules", "replay", str(path))
    assert status == 0, err
    position = Game.from_moves(WORKED_TO_CAPTURE).position
    assert out.startswith(render_board(position, "alice", "bob"))
    assert "After 3 moves: black to play" in out


def test_replay_of_a_finished_game_says_how_it_ended(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    entry = json.loads(
        (Path(__file__).parents[1] / "rules" / "data" / "games.json").read_text()
    )["blocked"]
    game = Game.from_moves(entry["moves"])
    outcome = game.outcome()
    assert outcome is not None
    path = tmp_path / "g.emergo"
    token = {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[outcome.winner]
    path.write_text(" ".join([*entry["moves"], token]) + "\n")
    status, out, _ = run(capsys, "rules", "replay", str(path))
    assert status == 0
    assert f"game over, {outcome.winner} wins ({outcome.reason})" in out


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("1. e4 d6\n2. e4 *\n", "line 2, move 3: e4"),
        ("1. e4 d6\n2. q4 *\n", "line 2: 'q4' is not a move"),
        ("1. e4 d6\n", "line 1: the moves do not end with a result"),
    ],
)
def test_replay_of_a_bad_record_exits_2_with_line_and_move(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "bad.emergo"
    path.write_text(text)
    status, out, err = run(capsys, "rules", "replay", str(path))
    assert status == 2
    assert out == ""
    assert f"{path}: {says}" in err


def test_replay_of_a_missing_file_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, err = run(capsys, "rules", "replay", str(tmp_path / "none.emergo"))
    assert status == 2 and "cannot read" in err
