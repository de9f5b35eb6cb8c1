"""Moves in advance: a player whose turn it is not queues the move they will make.

A plain queued move is played at once after the opponent's move if it is legal then,
marked ``(Auto)`` (:mod:`pbm_emergo.app.chain`). A conditional queue holds items
``opponentmove=mymove``, of which the one naming the opponent's actual move is played; any
other move clears the queue. A player has one queue per board; a later one replaces it,
``clear`` removes it. The queue is shown to its owner only: in the queue's answer and in
``emergo show`` from their registered address, never in the board mails both players get.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbm_emergo.app.accounts import is_registered
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db.autoplay import QueueItem
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.snapshot import BoardRead
from pbm_emergo.game.board import BoardSnapshot, BoardState
from pbm_emergo.game.board_changes import QueueCleared, QueueReplaced
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.queue import decide_queue, describe, queue_refusal
from pbm_emergo.game.reasons import refusal
from pbm_emergo.views import i18n
from pbm_emergo.views.board_mail import board_html, board_link, board_view
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render

# The word that removes a player's queue instead of replacing it.
CLEAR = "clear"


def queue_moves(
    ctx: UnitOfWork, player: Account, read: BoardRead, items: Sequence[str]
) -> Result:
    """Queue ``items`` (one move, or conditional items; ``["clear"]`` removes the queue)
    for ``player`` on the board ``read`` (with its queued moves)."""
    snapshot = read.snapshot
    state = snapshot.state
    number = state.number
    if state.side_of(player.id) is None:
        white, black = read.accounts
        raise Refused(
            said(
                refusal(
                    "not_on_board", userid=player.userid, board=number,
                    white=white.userid, black=black.userid,
                )
            ),
            board=number,
        )
    if len(items) == 1 and items[0].lower() == CLEAR:
        return clear_queue(ctx, snapshot, player)
    not_now = queue_refusal(state, player.id)
    if not_now is not None:
        raise Refused(said(not_now), board=number)
    try:
        queue = decide_queue(state, player.id, items)
    except Refusal as refused:
        raise _error(state, said(refused.reason_value or refused.reason)) from None
    ctx.write(QueueReplaced(number, player.id, state.ply, tuple(queue), ctx.now))
    lines = queue_lines(state, player.id, queue)
    view = board_view(
        state, link=board_link(ctx.config, number), now=ctx.now, queue=lines
    )
    subject = f"Emergo Board {number} queue"
    return Result(
        said=lambda: i18n._(
            "queued on board %(board)s: %(moves)s", board=number, moves=describe(queue)
        ),
        answer=render(
            "queue.txt.j2", number=number, userid=player.userid, lines=lines,
            cleared=False, board_text=view.text,
        ),
        answer_subject=subject,
        answer_board=number,
        answer_html=board_html(subject, [view.html]),
    )


def clear_queue(ctx: UnitOfWork, snapshot: BoardSnapshot, player: Account) -> Result:
    """Remove the player's queue on the board of ``snapshot``, if they have one."""
    number, player_id = snapshot.state.number, player.id
    had = snapshot.queued and any(item.player_id == player_id for item in snapshot.queue)
    if had:
        ctx.write(QueueCleared(number, player_id))
    subject = f"Emergo Board {number} queue"
    return Result(
        said=lambda: (
            i18n._("cleared the queue on board %(board)s", board=number) if had
            else i18n._("nothing was queued on board %(board)s", board=number)
        ),
        answer=render(
            "queue.txt.j2", number=number, userid=player.userid, lines=[], cleared=had,
            board_text=None,
        ),
        answer_subject=subject,
        answer_board=number,
    )


def _error(state: BoardState, reason: str) -> Refused:
    return Refused(reason, board=state.number, board_text=board_view(state).text)


def queue_lines(state: BoardState, player_id: int, queue: Sequence[QueueItem]) -> list[str]:
    """What the owner of a queue is shown about it (only they see it)."""
    mine = [item for item in queue if item.player_id == player_id]
    if not mine:
        return []
    other = state.opponent(player_id).userid
    if len(mine) == 1 and mine[0].if_move is None:
        return [
            i18n._(
                "Your queued move (only you see this): %(move)s as move %(number)s, played "
                "for you after %(other)s's move if it is legal then.",
                move=mine[0].notation, number=mine[0].number, other=other,
            )
        ]
    answers = "; ".join(
        i18n._("if %(other)s plays %(theirs)s, %(mine)s", other=other, theirs=i.if_move,
               mine=i.notation)
        for i in mine
    )
    return [
        i18n._(
            "Your conditional queue (only you see this): %(answers)s. Any other move of "
            "%(other)s's clears it.",
            answers=answers, other=other,
        )
    ]


def shown_queue(ctx: UnitOfWork, read: BoardRead) -> list[str]:
    """The queue lines for ``emergo show``: to the owner of a queue on the board ``read``
    (with its queued moves), when the request comes from one of their registered addresses
    (and passed its domain's checks)."""
    snapshot = read.snapshot
    if not snapshot.queued or not ctx.sender_trusted or not ctx.sender:
        return []
    for account in read.accounts:
        if is_registered(account, ctx.sender):
            lines = queue_lines(snapshot.state, account.id, snapshot.queue)
            if lines:
                return lines
    return []
