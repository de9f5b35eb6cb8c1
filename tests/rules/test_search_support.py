"""What a search needs from the engine: cheap children that leave the parent exactly as it
was (the parent is the take-back), and a position hash kept up to date move by move."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import Position

from .helpers import random_game


@pytest.mark.parametrize("seed", range(6))
def test_every_child_and_back_over_random_games(seed: int) -> None:
    for pos in random_game(seed):
        before = pos.to_text()
        for move in pos.legal_moves():
            child = pos.play_legal(move)
            # The child is exactly what play() gives, its hash what a fresh position from
            # its text computes, and the parent (the position taken back to) is unchanged.
            assert child.to_text() == pos.play(str(move)).to_text()
            assert child.zobrist() == Position.from_text(child.to_text()).zobrist()
            assert pos.to_text() == before


def test_hash_follows_the_key_not_the_ply() -> None:
    seen: dict[int, str] = {}
    for seed in range(4):
        for pos in random_game(seed):
            side, white, black, _, cells = pos.to_text().split()
            same_key = Position.from_text(f"{side} {white} {black} 999 {cells}")
            assert same_key.zobrist() == pos.zobrist()
            assert seen.setdefault(pos.zobrist(), pos.key_text()) == pos.key_text()


def test_start_position_hash_is_fixed() -> None:
    # The keys derive from fixed numbers: every process hashes alike (a robot's transposition
    # table and its choices do not depend on the process).
    assert Position().zobrist() == Position.from_text(Position().to_text()).zobrist()
    assert Position().zobrist() == 0xEF2E70283EE1BE1D
