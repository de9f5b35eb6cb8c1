"""Moves the server plays for a player: queued moves (``emergo queue``) and the autoplay flag
(``emergo autoplay``).

A board's queued moves belong to the player who is not to move (a queue is made only then,
and the next move plays or clears it). ``boards.queued`` says whether the board has any, so
that a move reads ``queued_moves`` only then; the move's own ``UPDATE boards`` re-checks the
flag it read (:func:`pbm_emergo.db.games.store_move`), so a queue stored meanwhile is never
passed over.

Functions take the caller's ``Session`` and open no transaction; writes re-check what the
command read and raise :class:`~pbm_emergo.db.errors.Conflict` when it changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import BindParameter, bindparam, delete, exists, insert, select, update
from sqlalchemy.orm import Session

from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import BOARD_ACTIVE, Board, Player, QueuedMove
from pbm_emergo.db.session import rowcount
from pbm_emergo.game.board import QueueItem

__all__ = [
    "QueueItem",
    "clear_queue",
    "queue_of",
    "replace_queue",
    "set_autoplay",
    "take_queue",
]


_NUMBER: BindParameter[int] = bindparam("number")
_QUEUE = select(QueuedMove).where(QueuedMove.board_number == _NUMBER).order_by(QueuedMove.id)


def queue_of(session: Session, number: int) -> list[QueueItem]:
    """The board's queued moves, in the order they were given (one indexed read)."""
    return [
        QueueItem(
            player_id=row.player_id,
            notation=row.notation,
            number=row.expected_number or 0,
            if_move=row.if_move,
            id=row.id,
        )
        for row in session.scalars(_QUEUE, {"number": number})
    ]


def _sync_flag(session: Session, number: int) -> None:
    """``boards.queued`` from whether the board has queued moves left."""
    left = exists().where(QueuedMove.board_number == number)
    session.execute(
        update(Board)
        .where(Board.number == number)
        .values(queued=left)
        .execution_options(synchronize_session=False)
    )


def replace_queue(
    session: Session,
    number: int,
    player_id: int,
    expected_ply: int,
    items: Sequence[QueueItem],
    now: datetime,
) -> None:
    """The player's queue on the board becomes ``items`` (a later queue replaces the earlier
    one). Conflict unless the board is still active at ``expected_ply`` moves (the queue was
    checked against that position)."""
    result = session.execute(
        update(Board)
        .where(Board.number == number, Board.ply == expected_ply, Board.status == BOARD_ACTIVE)
        .values(queued=True)
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict(f"Board {number} has changed meanwhile; nothing was queued.")
    session.execute(
        delete(QueuedMove).where(
            QueuedMove.board_number == number, QueuedMove.player_id == player_id
        )
    )
    session.execute(
        insert(QueuedMove),
        [
            {
                "board_number": number,
                "player_id": player_id,
                "notation": item.notation,
                "expected_number": item.number,
                "if_move": item.if_move,
                "comment": None,
                "created_at": now,
            }
            for item in items
        ],
    )


def clear_queue(session: Session, number: int, player_id: int) -> None:
    """Remove the player's queued moves on the board (``emergo queue ... clear``)."""
    session.execute(
        delete(QueuedMove).where(
            QueuedMove.board_number == number, QueuedMove.player_id == player_id
        )
    )
    _sync_flag(session, number)


def take_queue(session: Session, number: int, ids: Sequence[int]) -> None:
    """Remove the queued moves a move played or cleared (by ``id``); Conflict if one of them
    is gone already (the queue was replaced or cleared meanwhile)."""
    if not ids:
        return
    result = session.execute(
        delete(QueuedMove).where(QueuedMove.board_number == number, QueuedMove.id.in_(ids))
    )
    if rowcount(result) != len(ids):
        raise Conflict(f"The queued moves of board {number} changed meanwhile.")
    _sync_flag(session, number)


def set_board_style(session: Session, player_id: int, style: str) -> None:
    """How the player's board mails show the position: ``diagram`` or ``list``."""
    session.execute(
        update(Player)
        .where(Player.id == player_id)
        .values(board_style=style)
        .execution_options(synchronize_session=False)
    )


def set_autoplay(session: Session, player_id: int, on: bool) -> None:
    """Switch the player's autoplay on or off."""
    session.execute(
        update(Player)
        .where(Player.id == player_id)
        .values(autoplay=on)
        .execution_options(synchronize_session=False)
    )
