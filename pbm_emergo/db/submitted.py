"""Submitted moves (``emergo submit``, ``emergo confirm``): a move stored to be played only
when its player confirms it.

Functions take the caller's ``Session`` and open no transaction.
"""

from __future__ import annotations

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import MoveRecord, SubmittedMove
from pbm_emergo.game.board_changes import MoveSubmitted
from pbm_emergo.game.submit import Submitted

__all__ = ["drop", "drop_board", "last_move_id", "store", "submitted_move"]


def last_move_id(session: Session, board_number: int) -> int:
    """The id of the board's last move row (0: no move): a move played changes it (a take
    back drops the board's submissions instead: :func:`drop_board`)."""
    return (
        session.scalar(
            select(func.max(MoveRecord.id)).where(MoveRecord.board_number == board_number)
        )
        or 0
    )


def submitted_move(session: Session, board_number: int, player_id: int) -> Submitted | None:
    """The player's submitted move on the board, None if there is none."""
    row = session.scalars(
        select(SubmittedMove).where(
            SubmittedMove.board_number == board_number, SubmittedMove.player_id == player_id
        )
    ).first()
    if row is None:
        return None
    return Submitted(
        board=row.board_number,
        player_id=row.player_id,
        notation=row.notation,
        comment=row.comment or "",
        last_move_id=row.last_move_id,
        submitted_at=row.submitted_at,
    )


def store(session: Session, change: MoveSubmitted) -> None:
    """Store the submitted move in place of the player's earlier one on the board."""
    drop(session, change.board, change.player_id)
    session.add(
        SubmittedMove(
            board_number=change.board,
            player_id=change.player_id,
            notation=change.notation,
            comment=change.comment,
            last_move_id=change.last_move_id,
            submitted_at=change.at,
        )
    )
    session.flush()


def drop(session: Session, board_number: int, player_id: int) -> None:
    """Remove the player's submitted move on the board, if any."""
    session.execute(
        delete(SubmittedMove).where(
            SubmittedMove.board_number == board_number, SubmittedMove.player_id == player_id
        )
    )


def drop_board(session: Session, board_number: int) -> None:
    """Remove every submitted move on the board (its moves were taken back)."""
    session.execute(delete(SubmittedMove).where(SubmittedMove.board_number == board_number))
