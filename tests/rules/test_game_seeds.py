"""The seeded random games the whole-game tests replay (tests/support/search.py): each
named seed is still the shortest of the first 400 games that ends its way, so a change of
the engine or of the playout that moves them is noticed here, not as longer tests."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import Termination
from tests.support.search import SHORTEST_SEEDS, game_ending_by, shortest_game_ending_by


@pytest.mark.slow
@pytest.mark.parametrize("reason", sorted(SHORTEST_SEEDS))
def test_the_named_seed_is_the_shortest_game_ending_that_way(reason: Termination) -> None:
    seed, moves = shortest_game_ending_by(reason)
    assert seed == SHORTEST_SEEDS[reason]
    assert game_ending_by(reason) == moves
