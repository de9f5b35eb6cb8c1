"""``emergo submit`` and ``emergo confirm``: the shell of :mod:`pbm_emergo.game.submit`."""

from __future__ import annotations

from pbm_emergo.app.decisions import refused
from pbm_emergo.app.play import play
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import submitted
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.snapshot import BoardRead
from pbm_emergo.game.board_changes import SubmittedMoveDropped
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.play import Play
from pbm_emergo.game.submit import decide_confirm, decide_submit
from pbm_emergo.rules import render_board
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render

__all__ = ["confirm", "submit"]


def submit(ctx: UnitOfWork, player: Account, read: BoardRead, move: str) -> Result:
    """Store ``move`` as ``player``'s submission on the board ``read`` (checked as a move),
    and answer with the board it would make. Nobody else is told."""
    state = read.snapshot.state
    number = state.number
    request = Play.parse(number, player.id, player.userid, move, ctx.comment)
    earlier = submitted.submitted_move(ctx.session, number, player.id)
    try:
        decided = decide_submit(
            read.snapshot,
            request,
            submitted.last_move_id(ctx.session, number),
            earlier,
            ctx.now,
        )
    except Refusal as refusal:
        raise refused(state, refusal) from None
    ctx.write(decided.change)
    return Result(
        said=lambda: i18n._(
            "submitted %(move)s on board %(board)s", move=decided.notation, board=number
        ),
        answer=render(
            "submitted.txt.j2",
            number=number,
            notation=decided.notation,
            move_number=state.ply + 1,
            replaces=decided.replaces,
            userid=player.userid,
            board=render_board(decided.position, state.white.userid, state.black.userid),
        ),
        answer_subject=f"Emergo Board {number} submitted",
        answer_board=number,
    )


def confirm(ctx: UnitOfWork, player: Account, read: BoardRead) -> Result:
    """Play ``player``'s submitted move on the board ``read`` as ``emergo move`` plays a
    move, with the submission's comment unless this mail has its own; the submission is
    removed."""
    number = read.snapshot.state.number
    found = submitted.submitted_move(ctx.session, number, player.id)
    try:
        move = decide_confirm(
            number, player.userid, found, submitted.last_move_id(ctx.session, number)
        )
    except Refusal as refusal:
        raise Refused(
            said(refusal.reason_value or refusal.reason),
            board=number, writes=list(refusal.changes),
        ) from None
    result = play(
        ctx, player, read.snapshot, move.notation, comment=ctx.comment or move.comment
    )
    ctx.write(SubmittedMoveDropped(number, player.id))
    result.summary = f"confirmed: {result.summary}"
    if result.summary_said is not None:
        result.summary_said = i18n._("confirmed: %(summary)s", summary=result.summary_said)
    return result
