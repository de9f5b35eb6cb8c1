"""``emergo rematch`` decided on values: colours swapped, options kept, who may ask."""

from __future__ import annotations

import dataclasses

import pytest

from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.rematch import rematch_terms
from pbm_emergo.rules import Termination
from tests.game.boards import ALICE, BOB, CAROL_ID, snapshot

MOVES = ["e4", "d6", "c4"]


@pytest.mark.parametrize("asker", [ALICE, BOB])
def test_the_colours_are_swapped_and_the_options_kept(asker: object) -> None:
    state = snapshot(MOVES, finished=("white", Termination.RESIGNED), rated=False,
                     blocked_rule="draw").state  # fmt: skip
    state = dataclasses.replace(state, nag_days=5, forfeit_days=20, total_days=40)
    terms = rematch_terms(state, asker.id)  # type: ignore[attr-defined]
    assert (terms.white_id, terms.white) == (BOB.id, "bob")
    assert (terms.black_id, terms.black) == (ALICE.id, "alice")
    assert (terms.terms.rated, terms.terms.blocked_rule) == (False, "draw")
    assert (terms.terms.nag_days, terms.terms.forfeit_days, terms.terms.total_days) == (5, 20, 40)
    assert terms.of_board == 101
    assert terms.challenged == ("bob" if asker is ALICE else "alice")


def test_a_game_under_way_has_no_rematch() -> None:
    with pytest.raises(Refusal, match="is not over yet"):
        rematch_terms(snapshot(MOVES).state, ALICE.id)


def test_only_a_player_of_the_board_may_ask() -> None:
    state = snapshot(MOVES, finished=("black", Termination.DRAW_AGREED)).state
    with pytest.raises(Refusal, match="You did not play on board 101"):
        rematch_terms(state, CAROL_ID)
