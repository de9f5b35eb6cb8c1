"""Where a player is to move, as values: the active boards waiting for them, each with its
position as stored (what switching autoplay on looks at before it reads a board whole)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import BOARD_ACTIVE, Board
from pbm_emergo.db.reads.boards import to_move
from pbm_emergo.rules import Position


@dataclass(frozen=True)
class Turn:
    """An active board where the player is to move, and its position as stored."""

    number: int
    position: Position


def boards_to_move(session: Session, player_id: int) -> list[Turn]:
    """The active boards where ``player_id`` is to move, by number."""
    rows = session.execute(
        select(Board.number, Board.position)
        .where(Board.status == BOARD_ACTIVE, to_move(player_id))
        .order_by(Board.number)
    )
    return [Turn(number, Position.from_text(position)) for number, position in rows]


__all__ = ["Turn", "boards_to_move"]
