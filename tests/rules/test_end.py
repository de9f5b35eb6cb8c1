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
    Termination,
)

from .helpers import position
from .reference import RefPosition, neighbours, opponent

GAMES: dict[str, dict[str, object]] = json.loads(
    (Path(__file__).parent / "data" / "games.json").read_text()
)
# The endings the board decides; the others (resigned, draw agreed, forfeit) are commands.
REASONS = [
    Termination.ELIMINATED, Termination.BLOCKED, Termination.NO_LEGAL_ENTRY, Termination.REPETITION
]


def moves_of(reason: Termination) -> list[str]:
    moves = GAMES[reason]["moves"]
    assert isinstance(moves, list)
    return [str(m) for m in moves]


def test_every_ending_has_a_game() -> None:
    assert sorted(GAMES) == sorted(REASONS)


@pytest.mark.parametrize("reason", REASONS)
def test_the_game_ends_on_its_last_move_and_not_before(reason: Termination) -> None:
    moves = moves_of(reason)
    assert Game.from_moves(moves[:-1]).outcome() is None
    game = Game.from_moves(moves)
    outcome = game.outcome()
    assert outcome == Outcome(GAMES[reason]["winner"], reason)  # type: ignore[arg-type]
    assert outcome is not None and outcome.termination is reason
    assert [str(m) for m in game.moves] == moves
    assert game.position.ply == len(moves)


@pytest.mark.parametrize("reason", REASONS[:3])
def test_the_player_to_move_with_no_legal_move_loses(reason: Termination) -> None:
    game = Game.from_moves(moves_of(reason))
    assert game.position.legal_moves() == []
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == opponent(game.position.to_move)


def test_eliminated_means_no_pieces_and_no_men_in_hand() -> None:
    pos = Game.from_moves(moves_of(Termination.ELIMINATED)).position
    assert pos.in_hand(pos.to_move) == 0
    assert all(col.owner != pos.to_move for col in pos.columns().values())


def test_blocked_means_pieces_that_cannot_move() -> None:
    pos = Game.from_moves(moves_of(Termination.BLOCKED)).position
    assert pos.in_hand(pos.to_move) == 0
    assert any(col.owner == pos.to_move for col in pos.columns().values())


def test_no_legal_entry_means_men_in_hand_and_nowhere_to_enter() -> None:
    pos = Game.from_moves(moves_of(Termination.NO_LEGAL_ENTRY)).position
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


@pytest.mark.parametrize("reason", [Termination.BLOCKED, Termination.NO_LEGAL_ENTRY])
def test_blocked_draw_option_scores_a_blocked_player_as_a_draw(reason: Termination) -> None:
    game = Game.from_moves(moves_of(reason), blocked="draw")
    assert game.outcome() == Outcome(None, reason)


def test_blocked_draw_option_still_loses_when_eliminated() -> None:
    game = Game.from_moves(moves_of(Termination.ELIMINATED), blocked="draw")
    winner = GAMES["eliminated"]["winner"]
    assert winner in (WHITE, BLACK)
    assert game.outcome() == Outcome(str(winner), Termination.ELIMINATED)


def test_blocked_position_has_no_legal_move() -> None:
    # White's only piece is in the corner behind two black men.
    pos = position({"a5": "o1", "b5": "x1", "c5": "x1"})
    assert pos.legal_moves() == []
    assert pos.capture_size() == 0


@pytest.mark.parametrize("reason", REASONS)
def test_no_move_after_the_end(reason: Termination) -> None:
    game = Game.from_moves(moves_of(reason))
    for text in ("a5", "e4-e5", "e4xc4"):
        with pytest.raises(GameOverError):
            game.play(text)
    assert len(game.moves) == len(moves_of(reason))


def test_threefold_repetition_counts_cells_hands_and_side_to_move() -> None:
    moves = moves_of(Termination.REPETITION)
    keys = Counter([Position().key()])
    pos = Position()
    for move in moves:
        pos = pos.play(move)
        keys[pos.key()] += 1
    assert keys[pos.key()] == 3
    assert max(keys.values()) == 3
    # The draw is the same in either blocked mode.
    assert Game.from_moves(moves, blocked="draw").outcome() == Outcome(
        None, Termination.REPETITION
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
            expected = Outcome(None, Termination.REPETITION)
        elif not ref.legal_moves():
            expected = Outcome(opponent(ref.to_move), Termination(str(ref.loss_reason())))
        else:
            expected = None
        assert game.outcome() == expected


def test_terminations_are_the_words_the_database_stores() -> None:
    assert {t.name: str(t) for t in Termination} == {
        "ELIMINATED": "eliminated",
        "BLOCKED": "blocked",
        "NO_LEGAL_ENTRY": "no legal entry",
        "REPETITION": "threefold repetition",
        "RESIGNED": "resigned",
        "DRAW_AGREED": "draw agreed",
        "FORFEIT": "forfeit",
        "ADJUDICATED": "adjudicated",
        "VOIDED": "void",
    }
    assert Termination("draw agreed") is Termination.DRAW_AGREED
    assert f"{Termination.NO_LEGAL_ENTRY}" == "no legal entry"
    word: str = "forfeit"  # a str: compares, hashes and formats as its word
    assert word == Termination.FORFEIT and {word: 1}[Termination.FORFEIT] == 1


def test_an_outcome_keeps_a_termination_and_reads_the_stored_word() -> None:
    outcome = Outcome(WHITE, "resigned")  # type: ignore[arg-type]
    assert outcome.termination is Termination.RESIGNED
    assert outcome == Outcome(WHITE, Termination.RESIGNED)
    assert outcome.reason == "resigned" and type(outcome.reason) is str
    with pytest.raises(ValueError):
        Outcome(None, "stalemate")  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        outcome.termination = Termination.FORFEIT  # type: ignore[misc]


def test_the_old_string_constants_are_gone() -> None:
    import pbm_emergo.rules as rules
    import pbm_emergo.rules.game as game

    for name in ("ELIMINATED", "BLOCKED", "NO_LEGAL_ENTRY", "REPETITION"):
        assert not hasattr(rules, name) and not hasattr(game, name)
    assert "Termination" in rules.__all__
