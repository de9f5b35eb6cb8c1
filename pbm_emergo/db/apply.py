"""Applying a decision's changes in the write transaction, each re-checked as it is
written (:mod:`pbm_emergo.game.changes` says what each relies on).

``apply(session, changes)`` runs them in order; a change whose re-check fails raises what
the data layer's write raises (``Conflict``, ``StaleMoveError``, ``BoardFinishedError``),
and the caller starts over. The shell's writes that are not yet typed changes (plain
callables taking the session) are run in their place in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeAlias

from sqlalchemy.orm import Session

from pbm_emergo.db import autoplay, challenges, games
from pbm_emergo.game.changes import (
    BoardDeclined,
    Change,
    GameFinished,
    MovesTakenBack,
    MoveStored,
    QueueTaken,
    VoteOpened,
    VoteRemoved,
    VotesDropped,
)

__all__ = ["SessionWrite", "Write", "apply", "apply_change"]

# A write not (yet) expressed as a typed change: run with the write transaction's session.
SessionWrite: TypeAlias = Callable[[Session], None]
# What a unit of work hands to the write transaction.
Write: TypeAlias = Change | SessionWrite


def apply(session: Session, changes: Iterable[Write]) -> None:
    """Apply ``changes`` in order in ``session`` (the write transaction)."""
    for change in changes:
        apply_change(session, change)


def apply_change(session: Session, change: Write) -> None:
    """Apply one change, with the re-check it carries."""
    match change:
        case MoveStored():
            games.store_move(
                session, change.board, change.expected_ply, change.position,
                change.repetition, change.to_move, change.player_id, change.notation,
                change.comment, change.played_at, autoplayed=change.autoplayed,
                expected_queued=change.expected_queued,
                expected_no_votes=change.expected_no_votes,
            )
        case VotesDropped():
            games.drop_votes(session, change.board, keep_draw_of=change.keep_draw_of)
        case VoteOpened():
            games.open_vote(
                session, change.board, change.kind, change.player_id, change.ply, change.at
            )
        case VoteRemoved():
            games.remove_vote(session, change.board, change.kind, change.player_id)
        case MovesTakenBack():
            games.take_back(
                session, change.board, change.expected_ply, change.position, change.repetition
            )
        case QueueTaken():
            autoplay.take_queue(session, change.board, list(change.item_ids))
        case GameFinished():
            games.finish_board(
                session, change.board, change.winner, change.termination, change.at,
                expected_rating=change.expected_rating,
            )
        case BoardDeclined():
            challenges.remove_declined_board(session, change.board, change.expected_ply)
        case _:
            change(session)
