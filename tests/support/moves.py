"""Moves stored the way the server stores them: the board's snapshot read, the move
decided on it (:func:`pbm_emergo.game.play.decide_move`), its changes applied
(:func:`pbm_emergo.db.apply.apply`), in the caller's transaction."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from pbm_emergo.db import games
from pbm_emergo.db.apply import apply
from pbm_emergo.db.models import Player
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.game.decision import Decision
from pbm_emergo.game.play import Play, decide_move

# Eight legal moves from the start: four each, so that a game ending after them is rated
# (pbm_emergo/game/ratings.py, counts_for_rating).
RATED_OPENING = ("c7", "h6", "c3", "e7", "d2", "i5", "f8", "e6")


def decide(
    session: Session, number: int, text: str, player: Player, comment: str | None,
    now: datetime,
) -> Decision:
    """``player``'s ``text`` on board ``number`` decided on the board as read now (raises
    :class:`~pbm_emergo.game.decision.Refusal`)."""
    found = read_board(session, number)
    assert found is not None, f"no board {number}"
    request = Play.parse(number, player.id, player.userid, text, comment or "")
    return decide_move(found.snapshot, request, now)


def play_stored(
    session: Session, number: int, text: str, player: Player, comment: str | None,
    now: datetime,
) -> Decision:
    """Decide ``player``'s ``text`` on board ``number`` and store it; the board object in
    the session is read again afterwards."""
    decision = decide(session, number, text, player, comment, now)
    apply(session, decision.changes)
    board = games.get_board(session, number)
    if board is not None:
        session.expire(board)
    return decision
