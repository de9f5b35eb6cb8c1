"""RULES.md, "End of game": no legal move loses (or draws when blocked with blocked="draw"),
threefold repetition draws. Games come from tests/rules/data/games.json (make_games.py),
judged there by the reference generator alone."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from pbm_emergo.rules import (
    BLACK,
    WHITE,
    Game,
    GameOverError,
    IllegalMoveError,
    Outcome,
    Position,
)

from .helpers import position
from .reference import RefPosition, neighbours, opponent

GAMES: dict[str, dict[str, object]] = json.loads(
    (Path(__file__).parent / "data" / "games.json").read_text()
)
REASONS = ["eliminated", "blocked", "no legal entry", "threefold repetition"]


def moves_of(reason: str) -> list[str]:
    moves = GAMES[reason]["moves"]
    assert isinstance(moves, list)
    return [str(m) for m in moves]


def test_every_ending_has_a_game() -> None:
    assert sorted(GAMES) == sorted(REASONS)


@pytest.mark.parametrize("reason", REASONS)
def test_the_game_ends_on_its_last_move_and_not_before(reason: str) -> None:
    moves = moves_of(reason)
    assert Game.from_moves(moves[:-1]).outcome() is None
    game = Game.from_moves(moves)
    assert game.outcome() == Outcome(GAMES[reason]["winner"], reason)  # type: ignore[arg-type]
    assert [str(m) for m in game.moves] == moves
    assert game.position.ply == len(moves)


@pytest.mark.parametrize("reason", ["eliminated", "blocked", "no legal entry"])
def test_the_player_to_move_with_no_legal_move_loses(reason: str) -> None:
    game = Game.from_moves(moves_of(reason))
    assert game.position.legal_moves() == []
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == opponent(game.position.to_move)


def test_eliminated_means_no_pieces_and_no_men_in_hand() -> None:
    pos = Game.from_moves(moves_of("eliminated")).position
    assert pos.in_hand(pos.to_move) == 0
    assert all(col.owner != pos.to_move for col in pos.columns().values())


def test_blocked_means_pieces_that_cannot_move() -> None:
    pos = Game.from_moves(moves_of("blocked")).position
    assert pos.in_hand(pos.to_move) == 0
    assert any(col.owner == pos.to_move for col in pos.columns().values())


def test_no_legal_entry_means_men_in_hand_and_nowhere_to_enter() -> None:
    pos = Game.from_moves(moves_of("no legal entry")).position
    assert pos.to_move == BLACK and pos.in_hand(BLACK) == 1 and pos.in_hand(WHITE) == 0
    # Black may not step instead, though its pieces have vacant neighbours.
    steps = [
        f"{cell}-{n}"
        for cell, col in pos.columns().items()
        if col.owner == BLACK
        for n in neighbours(cell)
        if pos.column(n) is None
    ]
    assert steps
    for step in steps:
        with pytest.raises(IllegalMoveError):
            pos.parse_move(step)


@pytest.mark.parametrize("reason", ["blocked", "no legal entry"])
def test_blocked_draw_option_scores_a_blocked_player_as_a_draw(reason: str) -> None:
    game = Game.from_moves(moves_of(reason), blocked="draw")
    assert game.outcome() == Outcome(None, reason)


def test_blocked_draw_option_still_loses_when_eliminated() -> None:
    game = Game.from_moves(moves_of("eliminated"), blocked="draw")
    winner = GAMES["eliminated"]["winner"]
    assert winner in (WHITE, BLACK)
    assert game.outcome() == Outcome(str(winner), "eliminated")


def test_blocked_position_has_no_legal_move() -> None:
    # White's only piece is in the corner behind two black men.
    pos = position({"a5": "o1", "b5": "x1", "c5": "x1"})
    assert pos.legal_moves() == []
    assert pos.capture_size() == 0


@pytest.mark.parametrize("reason", REASONS)
def test_no_move_after_the_end(reason: str) -> None:
    game = Game.from_moves(moves_of(reason))
    for text in ("a5", "e4-e5", "e4xc4"):
        with pytest.raises(GameOverError):
            game.play(text)
    assert len(game.moves) == len(moves_of(reason))


def test_threefold_repetition_counts_cells_hands_and_side_to_move() -> None:
    moves = moves_of("threefold repetition")
    keys = Counter([Position().key()])
    pos = Position()
    for move in moves:
        pos = pos.play(move)
        keys[pos.key()] += 1
    assert keys[pos.key()] == 3
    assert max(keys.values()) == 3
    # The draw is the same in either blocked mode.
    assert Game.from_moves(moves, blocked="draw").outcome() == Outcome(
        None, "threefold repetition"
    )


def test_the_repetition_key() -> None:
    cells = {"e4": "o2", "a5": "x1"}
    base = position(cells, white=1, black=2, ply=20)
    assert base.key() == position(cells, white=1, black=2, ply=40).key()
    assert base.key() != position(cells, white=2, black=2, ply=20).key()
    assert base.key() != position(cells, white=1, black=2, ply=20, to_move=BLACK).key()
    assert base.key() != position({"e4": "o1x1", "a5": "x1"}, white=1, black=2).key()
    assert base.key() != position({"e5": "o2", "a5": "x1"}, white=1, black=2).key()


def test_game_replay_raises_on_an_illegal_move() -> None:
    with pytest.raises(IllegalMoveError):
        Game.from_moves(["e5"])
    with pytest.raises(IllegalMoveError):
        Game.from_moves(["e4", "e3"])  # feeding


def test_play_returns_the_canonical_move() -> None:
    game = Game()
    assert str(game.play("E4")) == "e4"
    assert game.outcome() is None
    assert game.position.to_move == BLACK


@pytest.mark.parametrize("seed", range(12))
def test_outcomes_of_random_games_match_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    game, ref = Game(), RefPosition()
    seen = Counter([ref.key()])
    while game.outcome() is None:
        legal = ref.legal_moves()
        assert [str(m) for m in game.position.legal_moves()] == legal
        move = rng.choice(legal)
        assert str(game.play(move)) == move
        ref = ref.play(move)
        seen[ref.key()] += 1
        if seen[ref.key()] == 3:
            expected = Outcome(None, "threefold repetition")
        elif not ref.legal_moves():
            expected = Outcome(opponent(ref.to_move), str(ref.loss_reason()))
        else:
            expected = None
        assert game.outcome() == expected
