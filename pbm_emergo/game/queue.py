"""Moves in advance on values: the queue a player's ``emergo queue`` items make, checked
against the board as it stands.

A plain queued move is checked as notation only (the position it will meet is not known
yet); each conditional item ``opponentmove=mymove`` is checked in full: the opponent's move
legal now, the answer legal after it. A ``#n`` after a move must be the number the queued
move will have.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbm_emergo.game.board import BoardState, QueueItem
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.reasons import refusal
from pbm_emergo.game.sentences import result_reason, split_guard
from pbm_emergo.rules import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    MoveError,
    Position,
)
from pbm_emergo.rules.reasons import Reason

__all__ = ["decide_queue", "describe", "queue_refusal"]


def queue_refusal(state: BoardState, player_id: int) -> Reason | None:
    """Why ``player_id``, a player of ``state``'s board, may queue no move now, or None:
    the game is over, or it is their own turn (a move is queued only while the opponent is
    to move)."""
    if not state.active:
        return refusal("game_is_over", number=state.number, result=result_reason(state))
    if state.to_move is not None and state.side_of(player_id) == state.to_move:
        return refusal(
            "queue_your_turn", number=state.number, userid=state.seat(state.to_move).userid
        )
    return None


def decide_queue(state: BoardState, player_id: int, items: Sequence[str]) -> list[QueueItem]:
    """The queue ``items`` name for ``player_id`` on ``state``'s board; a :class:`Refusal`
    (with the board) says why not."""
    number = state.ply + 2  # the number the queued move will have
    conditional = [item for item in items if "=" in item]
    if conditional and len(conditional) != len(items):
        raise Refusal(refusal("queue_mixed"))
    if not conditional:
        if len(items) != 1:
            raise Refusal(refusal("queue_one"))
        text = _guarded(state, items[0], number)
        try:
            written = Move.from_text(text)
        except InvalidMoveError as err:
            raise Refusal(err.reason or str(err)) from None
        return [QueueItem(player_id, str(written), number)]
    queue: list[QueueItem] = []
    position = state.position
    seen: set[str] = set()
    for item in items:
        theirs_text, _, mine_text = item.partition("=")
        theirs = _legal(position, theirs_text, None)
        if str(theirs) in seen:
            raise Refusal(refusal("queue_twice", move=str(theirs)))
        seen.add(str(theirs))
        after = position.play(theirs)
        mine_text = _guarded(state, mine_text, number)
        if not after.legal_moves():
            raise Refusal(refusal("queue_over_after", move=str(theirs)))
        mine = _legal(after, mine_text, str(theirs))
        queue.append(QueueItem(player_id, str(mine), number, if_move=str(theirs)))
    return queue


def _guarded(state: BoardState, text: str, number: int) -> str:
    """The move without its ``#n``, which must be the number the queued move will have."""
    move, guard = split_guard(text)
    if guard is not None and guard != number:
        raise Refusal(
            refusal(
                "queue_guard", board=state.number, ply=state.ply + 1, number=number,
                guard=guard,
            )
        )
    return move


def _legal(position: Position, text: str, answering: str | None) -> Move:
    """The move ``text`` in ``position``: the opponent's move of a conditional item, or
    (``answering`` the opponent's move) the answer to it."""
    # The answer's reasons also name the opponent's move it answers.
    answered = {} if answering is None else {"theirs": answering}
    whose = "theirs" if answering is None else "mine"
    try:
        return position.parse_move(text)
    except AmbiguousMoveError as err:
        routes = ", ".join(err.candidates)
        raise Refusal(
            refusal(f"queue_{whose}_ambiguous", move=text[:40], routes=routes, **answered)
        ) from None
    except IllegalMoveError as err:
        raise Refusal(
            refusal(f"queue_{whose}_illegal", move=text[:40], why=_why(err), **answered)
        ) from None
    except MoveError as err:
        raise Refusal(
            refusal(f"queue_{whose}_invalid", move=text[:40], why=_why(err), **answered)
        ) from None


def _why(err: MoveError) -> Reason | str:
    return err.reason if err.reason is not None else str(err)


def describe(queue: Sequence[QueueItem]) -> str:
    """The queue in a few words, for the summary."""
    if len(queue) == 1 and queue[0].if_move is None:
        return queue[0].notation
    return " ".join(f"{item.if_move}={item.notation}" for item in queue)
