"""The robots: legal moves only, deterministic per seed, sound on simple tactics."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm_emergo.robot import LEVELS, WIN, choose_move, evaluate, resigns, think
from pbm_emergo.rules import Game, Position

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_position(seed: int, plies: int) -> Position:
    """The position after up to ``plies`` uniformly random moves (earlier if the game ends)."""
    rng = random.Random(seed)
    game = Game()
    while game.outcome() is None and len(game.moves) < plies:
        game.play(rng.choice(game.position.legal_moves()))
    if game.outcome() is not None:
        game = Game.from_moves(game.moves[:-1])
    return game.position


@SETTINGS
@given(
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 200),
    level=st.sampled_from([1, 2, 3]),
    robot_seed=st.integers(0, 3),
)
def test_robots_only_play_legal_moves(seed: int, plies: int, level: int, robot_seed: int) -> None:
    pos = random_position(seed, plies)
    move = choose_move(pos, level, budget_s=0.3, seed=robot_seed)
    assert move in pos.legal_moves()
    pos.play(move)  # the engine takes it


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.usefixtures("search_clock_stands_still")
def test_a_robot_game_to_the_end_is_legal_throughout(level: int) -> None:
    rng = random.Random(level)
    game = Game()
    while game.outcome() is None and len(game.moves) < 400:
        if game.position.side_index == 0:
            move = choose_move(game.position, level, budget_s=0.2, seed=1)
        else:
            move = rng.choice(game.position.legal_moves())
        assert move in game.position.legal_moves()
        game.play(move)
    assert game.outcome() is not None
    assert game.outcome().winner == "white"  # type: ignore[union-attr]


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.usefixtures("search_clock_stands_still")
def test_same_seed_same_move(level: int) -> None:
    # The server's default budget; the node allowance, not the clock, ends each search.
    for seed in range(4):
        pos = random_position(seed, 30)
        first = think(pos, level, budget_s=10, seed=seed)
        again = think(pos, level, budget_s=10, seed=seed)
        assert (first.move, first.score, first.nodes) == (again.move, again.score, again.nodes)


def test_weak_robot_varies_with_the_seed() -> None:
    pos = Position()
    assert len({str(choose_move(pos, 1, 1.0, seed=s)) for s in range(10)}) > 1


def test_a_single_legal_move_comes_back_without_a_search() -> None:
    # Black's only move is the compulsory maximum capture.
    pos = Position.from_text("x 0 0 41 c5=x1,d6=x1,e5=x1,e4=o4,g4=o1,h4=x2")
    decision = think(pos, 3, 1.0)
    assert str(decision.move) == "h4xf4xd4"
    assert decision.nodes == 0


@pytest.mark.parametrize("level", [2, 3])
def test_robot_does_not_hang_a_man(level: int) -> None:
    # White to step: e3-e4 lets Black's e5 jump it (e5xe3); every other move is safe.
    pos = Position.from_text("o 0 0 40 a5=x1,e3=o1,e5=x1,i5=o2")
    move = choose_move(pos, level, 5.0)
    assert str(move) != "e3-e4"
    assert not pos.play(move).capture_size()


def test_strong_robot_sees_a_forced_win() -> None:
    # The worked example of the rules: after f4-e4 Black must play h4xf4xd4 and White's
    # e4xc4xc6xe6xe4xc4 then leaves Black with nothing.
    pos = Position.from_text("o 0 0 40 c5=x1,d6=x1,e5=x1,f4=o4,g4=o1,h4=x2")
    decision = think(pos, 3, 10.0)
    assert decision.score >= WIN // 2
    assert str(decision.move) == "f4-e4"


def test_robot_resigns_a_lost_game_only() -> None:
    # One black man against three white columns of eleven men: lost.
    lost = Position.from_text("x 0 0 80 e5=x1,c4=o5,g6=o4,i5=o2")
    for level in (1, 2, 3):
        assert resigns(think(lost, level, 5.0), lost)
    start = Position()
    assert not resigns(think(start, 3, 1.0), start)
    even = random_position(3, 40)
    assert not resigns(think(even, 3, 1.0), even)


def test_evaluation_is_symmetric() -> None:
    for seed in range(20):
        pos = random_position(seed, 60)
        side, white, black, ply, cells = pos.to_text().split()
        swap = str.maketrans("ox", "xo")
        mirrored = Position.from_text(
            f"{side.translate(swap)} {black} {white} {ply} {cells.translate(swap)}"
        )
        assert evaluate(pos) == evaluate(mirrored)


def test_levels_are_one_to_three() -> None:
    assert sorted(LEVELS) == [1, 2, 3]
    with pytest.raises(ValueError):
        choose_move(Position(), 4, 1.0)


def test_the_time_budget_holds_from_the_first_iteration() -> None:
    # A budget too small for even one ply still gives a legal move, and no verdict.
    pos = random_position(11, 20)
    decision = think(pos, 3, budget_s=1e-9)
    assert decision.move in pos.legal_moves()
    assert not decision.lost
    assert decision.seconds < 1.0
