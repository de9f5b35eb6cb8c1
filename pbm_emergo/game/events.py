"""What a decision reports for the views to render: one frozen value per kind of mail."""

from __future__ import annotations

from dataclasses import dataclass, field

from pbm_emergo.game.board import BoardState, Seat
from pbm_emergo.rules.reasons import Reason


@dataclass(frozen=True)
class BoardChanged:
    """The board changed: the board mail of ``state`` (the board after the change) to its
    players and watchers, with ``headline``; ``comment`` (by ``commenter``) for the players
    only."""

    state: BoardState
    headline: str | None
    comment: str | None = None
    commenter: str | None = None


@dataclass(frozen=True)
class QueuedMoveFailed:
    """``player``'s queued move ``notation`` could not be played when its turn came
    (``why``, in English); ``state``: the board after the chain."""

    state: BoardState
    player: Seat
    notation: str
    why: str
    # ``why`` as a value the shell says in the player's language, where it is one.
    why_value: Reason | None = field(default=None, compare=False)


@dataclass(frozen=True)
class GameDeclined:
    """``decliner`` declined the new game on ``state``'s board: the board is removed."""

    state: BoardState
    decliner: Seat
    comment: str | None = None


Event = BoardChanged | QueuedMoveFailed | GameDeclined
