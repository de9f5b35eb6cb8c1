"""``emergo submit`` and ``emergo confirm``: a move played only once its player confirms
it, decided on values. A submission is checked as a move would be (it must be playable
now); it holds while the board's moves stay as they were, and any move played or taken
back since drops it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbm_emergo.game.board import BoardSnapshot
from pbm_emergo.game.board_changes import MoveSubmitted, SubmittedMoveDropped
from pbm_emergo.game.changes import MoveStored
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.play import Play, decide_move
from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules import Position

__all__ = ["Submission", "Submitted", "decide_confirm", "decide_submit"]


@dataclass(frozen=True)
class Submitted:
    """A submitted move as stored."""

    board: int
    player_id: int
    notation: str
    comment: str
    last_move_id: int
    submitted_at: datetime


@dataclass(frozen=True)
class Submission:
    """What a submission decided: the change that stores it, the move as it will be
    played, and the position it would make (the preview)."""

    change: MoveSubmitted
    notation: str
    position: Position
    replaces: str | None  # the notation of the earlier submission it replaces


def decide_submit(
    snapshot: BoardSnapshot,
    request: Play,
    last_move_id: int,
    earlier: Submitted | None,
    now: datetime,
) -> Submission:
    """``request``'s move submitted on the board read as ``snapshot`` (``last_move_id``:
    the id of its last move row, 0 for none; ``earlier``: the player's submission there,
    which it replaces). Raises :class:`Refusal` where ``emergo move`` would refuse the
    move, and for anything but a move (resign, a draw offer ... are sent as they are)."""
    if request.keyword is not None:
        raise Refusal(
            refusal(
                "submit_not_a_move", text=request.text, board=request.board,
                userid=request.userid,
            ),
            with_board=False,
        )
    decision = decide_move(snapshot, request, now)
    first = decision.changes[0]
    assert isinstance(first, MoveStored)  # a move's decision stores the move first
    change = MoveSubmitted(
        board=snapshot.state.number,
        player_id=request.player_id,
        notation=first.notation,
        comment=request.comment or None,
        last_move_id=last_move_id,
        at=now,
    )
    replaces = earlier.notation if earlier is not None else None
    return Submission(change, first.notation, first.position, replaces)


def decide_confirm(
    board: int, userid: str, submitted: Submitted | None, last_move_id: int
) -> Submitted:
    """The submitted move to play now: a :class:`Refusal` when there is none, or when a
    move was played or taken back on the board since it was submitted (then it is
    dropped: the refusal's change removes it)."""
    if submitted is None:
        raise Refusal(
            refusal("nothing_submitted", userid=userid, board=board),
            with_board=False,
        )
    if submitted.last_move_id != last_move_id:
        raise Refusal(
            refusal("submitted_dropped", move=submitted.notation, board=board),
            changes=(SubmittedMoveDropped(board, submitted.player_id),),
        )
    return submitted
