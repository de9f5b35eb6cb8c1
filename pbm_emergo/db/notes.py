"""Private notes on games (``emergo note``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import GameNote, PlayerAddress
from pbm_emergo.game.notes import Note


def note_count(session: Session, board: int, player_id: int) -> int:
    return int(
        session.scalar(
            select(func.count())
            .select_from(GameNote)
            .where(GameNote.board_number == board, GameNote.player_id == player_id)
        )
        or 0
    )


def add_note(
    session: Session, board: int, player_id: int, ply: int, text: str, now: datetime, *, limit: int
) -> None:
    """Store a note; Conflict when the player reached ``limit`` notes on the board
    meanwhile."""
    if note_count(session, board, player_id) >= limit:
        raise Conflict("The player's notes on the board reached the limit meanwhile.")
    session.add(
        GameNote(board_number=board, player_id=player_id, ply=ply, text=text, created_at=now)
    )
    session.flush()


def notes_for_address(session: Session, board: int, address: str) -> list[Note]:
    """The notes on ``board`` written by the players who registered ``address``."""
    rows = session.execute(
        select(GameNote.ply, GameNote.text, GameNote.created_at)
        .join(PlayerAddress, PlayerAddress.player_id == GameNote.player_id)
        .where(GameNote.board_number == board, PlayerAddress.address_key == address.lower())
        .order_by(GameNote.ply, GameNote.id)
    )
    return [Note(ply, text, at) for ply, text, at in rows]
