"""A board's game record made of its state (pbm_emergo.game.records), on values: every
finished game of the corpus exports and replays to the same position."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from pbm_emergo.game.records import board_record, record_filename, record_of
from pbm_emergo.rules import Termination
from pbm_emergo.rules.record import BLACK_WINS, UNFINISHED, WHITE_WINS, parse_record, replay
from tests.game.boards import random_game, snapshot

CORPUS = json.loads((Path(__file__).parents[1] / "rules" / "data" / "games.json").read_text())
OPTIONS = "rated; a blocked player loses"


@dataclass(frozen=True)
class Note:
    number: int
    played: str
    mark: str
    ohs_score: int
    forced: bool
    best: str | None


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_corpus_game_round_trips(name: str) -> None:
    entry = CORPUS[name]
    blocked = "draw" if entry.get("blocked") == "draw" else "loss"
    state = snapshot(entry["moves"], blocked_rule=blocked).state
    assert not state.active
    text = board_record(state, site="pbm@example.org", options=OPTIONS)
    record = parse_record(text)
    game = replay(record)
    assert game.position == state.position
    assert game.outcome() is not None and game.outcome().winner == state.winner  # type: ignore[union-attr]
    assert record.tag("Termination") == state.outcome_reason
    assert record.tag("White") == "alice" and record.tag("Black") == "bob"
    assert record.tag("Blocked") == blocked


@pytest.mark.parametrize("seed", range(6))
def test_games_ended_by_a_command_keep_their_result(seed: int) -> None:
    moves = random_game(seed, 30)
    state = snapshot(moves, finished=("black", Termination.RESIGNED)).state
    record = parse_record(board_record(state, site="s", options=OPTIONS))
    assert record.result == BLACK_WINS
    assert record.tag("Termination") == "resigned"
    assert replay(record).position == state.position


def test_a_game_under_way_is_unfinished() -> None:
    state = snapshot(["e4", "d6"]).state
    record = record_of(state, site="s", options=OPTIONS)
    assert record.result == UNFINISHED and record.tag("Termination") is None
    assert [m.notation for m in record.moves] == ["e4", "d6"]


def test_the_engines_notes_go_with_their_moves() -> None:
    moves = random_game(3, 12)
    state = snapshot(moves, finished=("white", Termination.RESIGNED)).state
    notes = [
        Note(2, moves[1], "?", -130, False, moves[1] if moves[1] != "e5" else "e4"),
        Note(3, moves[2], "", 2000, True, None),
        Note(4, "a1", "??", 0, False, None),  # not the move played there: left out
    ]
    record = parse_record(board_record(state, site="s", options=OPTIONS, notes=notes))
    assert record.result == WHITE_WINS
    assert (record.moves[1].mark, record.moves[1].value) == ("?", -130)
    assert record.moves[1].best is not None
    assert (record.moves[2].value, record.moves[2].forced) == (1, True)
    assert record.moves[3].value is None and record.moves[3].mark == ""
    assert record.moves[0].value is None


def test_the_file_name() -> None:
    assert record_filename(101) == "board-101.emergo"
