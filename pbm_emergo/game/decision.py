"""What a decision gives back: the changes to store, the events to render, a summary and
the board after it; or a refusal, with its reason."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbm_emergo.game.board import BoardState
from pbm_emergo.game.changes import Change, GameFinished
from pbm_emergo.game.events import Event
from pbm_emergo.game.ratings import GameRating
from pbm_emergo.rules import Termination
from pbm_emergo.rules.reasons import Reason


@dataclass(frozen=True)
class Decision:
    """What a request decided: ``changes`` to store (in order, in one write transaction),
    ``events`` for the views (in the order their mails go out), ``summary`` (the one-line
    report of a ``multiple`` mail), ``state_after`` (the board once the changes are
    stored)."""

    changes: tuple[Change, ...]
    events: tuple[Event, ...]
    summary: str | Reason
    state_after: BoardState


class Refusal(Exception):
    """A request the game refuses: ``reason`` is one plain sentence in English
    (``reason_value``: as a value the shell says in the player's language, where it was
    given one); ``template`` names the error template under ``templates/error/`` and
    ``details`` are its extra variables;
    ``with_board``: the error reply shows the board as read. ``changes`` are stored all the
    same (a request that turned out void is removed)."""

    def __init__(
        self,
        reason: str | Reason,
        *,
        template: str = "error/error.txt.j2",
        with_board: bool = True,
        changes: tuple[Change, ...] = (),
        **details: Any,
    ) -> None:
        super().__init__(str(reason))
        self.reason = str(reason)
        self.reason_value = reason if isinstance(reason, Reason) else None
        self.template = template
        self.with_board = with_board
        self.changes = changes
        self.details = details


def finish(
    state: BoardState, winner: str | None, termination: Termination, now: datetime,
    rating: GameRating | None = None,
) -> Decision:
    """End the game on ``state``'s board now: for a rated board whose game counts for
    rating (:meth:`BoardState.rates_at`) the ratings move by ``rating``, else by the changes
    of this result read with the board (:meth:`BoardState.rating_if`; the write re-checks
    them, and the move count ``state`` is at); a rated board whose game does not count ends
    unrated. No events: the caller says why in its own board mail."""
    rated = state.rates_at(now)
    if not rated:
        rating = None
    elif rating is None:
        rating = state.rating_if(winner)
        if rating is None:
            raise ValueError(f"board {state.number} was read without its rating outcomes")
    change = GameFinished(
        state.number, winner, termination, now, expected_rating=rating, rated=rated,
        expected_ply=state.ply,
    )
    return Decision((change,), (), "", state.finished(winner, termination, rating))
