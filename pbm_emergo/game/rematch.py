"""``emergo rematch``: the terms of a new game after a finished one, decided on its state."""

from __future__ import annotations

from dataclasses import dataclass

from pbm_emergo.game.board import BoardState
from pbm_emergo.game.challenges import ChallengeTerms, terms_of
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.reasons import refusal

__all__ = ["RematchTerms", "rematch_terms"]


@dataclass(frozen=True)
class RematchTerms:
    """The new board's players (the colours of the finished game swapped) and terms (the
    same), and who asked: the other is challenged."""

    of_board: int
    white_id: int
    white: str
    black_id: int
    black: str
    challenger_id: int
    terms: ChallengeTerms

    @property
    def challenged(self) -> str:
        return self.black if self.challenger_id == self.white_id else self.white


def rematch_terms(state: BoardState, player_id: int) -> RematchTerms:
    """The rematch of ``state``'s board asked by ``player_id``: a Refusal if they did not
    play on it or its game is not over."""
    if player_id not in (state.white.id, state.black.id):
        raise Refusal(
            refusal("rematch_stranger", board=state.number), with_board=False
        )
    if state.active:
        raise Refusal(
            refusal("rematch_early", board=state.number), with_board=False
        )
    return RematchTerms(
        of_board=state.number,
        white_id=state.black.id,
        white=state.black.userid,
        black_id=state.white.id,
        black=state.white.userid,
        challenger_id=player_id,
        terms=terms_of(state),
    )
