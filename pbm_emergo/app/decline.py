"""Declining a new game: a player who resigns a board before making a move on it declines
the game. The board is removed (not rated, not counted, not in the history; its number is
not handed out again) and both players are told.

Called by ``emergo move ... resign`` and ``emergo resign`` (pbm_emergo.app.play).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbm_emergo.app.boards import BoardState
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import challenges
from pbm_emergo.views.templating import render

if TYPE_CHECKING:
    from pbm_emergo.db.session import Session


def has_moved(state: BoardState, player_id: int) -> bool:
    """Whether the player has made a move on the board (one that still stands)."""
    return any(move.player_id == player_id for move in state.moves)


def decline(ctx: UnitOfWork, state: BoardState, player_id: int) -> Result:
    """Remove the board ``player_id`` declined, and tell both players."""
    number, ply = state.number, state.ply
    decliner = state.seat(state.side_of(player_id) or "white")

    def store(session: Session) -> None:
        challenges.remove_declined_board(session, number, ply)

    ctx.write(store)
    body = render(
        "declined.txt.j2",
        number=number,
        white=state.white.userid,
        black=state.black.userid,
        decliner=decliner.userid,
        comment=ctx.comment or None,
    )
    subject = f"Emergo Board {number} declined"
    recipients: list[str] = []
    for address in (state.white.address, state.black.address):
        if address and address.lower() not in {r.lower() for r in recipients}:
            recipients.append(address)
    return Result(
        summary=f"declined the game on board {number}; the board is removed",
        # The challenger's own game: not charged to the decliner (game.budget).
        replies=[
            Reply(to=r, subject=subject, body=body, board=number, solicited=True)
            for r in recipients
        ],
    )
