"""The search's shortcuts give what the long way gives: ``Position.is_quiet`` against the
move list, the material table against summing the columns one by one."""

from __future__ import annotations

import random

from pbm_emergo.robot.evaluate import FULL, MAN, MATERIAL, Weights, evaluate
from pbm_emergo.rules import Game, Position


def _random_positions(games: int, seed: int) -> list[Position]:
    found = []
    for number in range(games):
        rng = random.Random(seed + number)
        game = Game()
        while game.outcome() is None and len(game.moves) < 200:
            found.append(game.position)
            game.play(rng.choice(game.position.legal_moves()))
        found.append(game.position)
    return found


POSITIONS = _random_positions(12, 4242)


def _material_the_long_way(pos: Position, under: int) -> int:
    white = pos.hands[0] * MAN
    black = pos.hands[1] * MAN
    for value in pos.cell_values:
        side_men, other_men = (white, black) if value > 0 else (black, white)
        own, prisoners = abs(value) & 31, abs(value) >> 5
        if not own:
            continue
        side_men += own * MAN
        other_men += prisoners * under // own
        white, black = (side_men, other_men) if value > 0 else (other_men, side_men)
    return white - black if pos.side_index == 0 else black - white


def test_is_quiet_agrees_with_the_move_list() -> None:
    kinds = set()
    for pos in POSITIONS:
        quiet = pos.is_quiet()  # before the moves are generated
        moves = pos.legal_moves()
        expected = bool(moves) and moves[0].kind != "capture"
        assert quiet is expected, pos.to_text()
        assert pos.is_quiet() is expected  # after, from the generated list
        kinds.add((expected, moves[0].kind if moves else None))
    # The positions cover every case: captures, entries, steps.
    assert {(False, "capture"), (True, "enter"), (True, "step")} <= kinds


def test_a_position_without_a_move_is_not_quiet() -> None:
    stuck = [pos for pos in POSITIONS if not pos.legal_moves()]
    assert stuck
    for pos in stuck:
        assert not Position.from_text(pos.to_text()).is_quiet()


def test_material_table_matches_the_columns_summed_one_by_one() -> None:
    with_prisoners = [pos for pos in POSITIONS if any(abs(v) >> 5 for v in pos.cell_values)]
    assert len(with_prisoners) > 50
    for under in (MATERIAL.prisoner_under_one, 25, 0):
        weights = Weights(prisoner_under_one=under, material_only=True)
        for pos in POSITIONS:
            assert evaluate(pos, weights) == _material_the_long_way(pos, under)


def test_full_evaluation_adds_the_other_terms_to_the_same_material() -> None:
    # Material plus terms that do not depend on it: two weights with the same prisoner
    # weight but no other terms must give the material alone.
    silent = Weights(step=0, step_no_hand=0, blocked_soon=0, safe_entry=0, no_safe_entry=0,
                     shadow=0, threatened=0)
    for pos in POSITIONS:
        assert evaluate(pos, silent) == _material_the_long_way(pos, FULL.prisoner_under_one)
