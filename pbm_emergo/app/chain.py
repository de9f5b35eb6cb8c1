"""The moves the server plays for players, due without a move of theirs: the shell of
:func:`pbm_emergo.game.chain.follow` (a player switching autoplay on).

A move's own chain is decided with the move (:func:`pbm_emergo.game.play.decide_move`).
"""

from __future__ import annotations

from pbm_emergo.app.decisions import result_of
from pbm_emergo.app.results import Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.game.board import BoardSnapshot
from pbm_emergo.game.chain import follow as decide_follow


def follow(
    ctx: UnitOfWork, snapshot: BoardSnapshot, autoplay_on: frozenset[int] = frozenset()
) -> Result | None:
    """The queued and forced moves due on the board read as ``snapshot`` now
    (``autoplay_on``: players whose autoplay is being switched on), stored and mailed;
    None when there are none."""
    decision = decide_follow(snapshot, ctx.now, autoplay_on)
    if decision is None:
        return None
    return result_of(ctx, decision)
