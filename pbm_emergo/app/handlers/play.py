"""The requests that play on a board: ``emergo move`` (and ``emergo resign``),
``emergo queue``, ``emergo autoplay``, ``emergo analyse``, ``emergo submit`` and ``emergo
confirm``."""

from __future__ import annotations

from pbm_emergo.app import analysis, resolve
from pbm_emergo.app.autoplay import set_autoplay
from pbm_emergo.app.context import Context
from pbm_emergo.app.handlers import handles
from pbm_emergo.app.play import play
from pbm_emergo.app.queue import queue_moves
from pbm_emergo.app.resolve import login, login_seated
from pbm_emergo.app.results import Result
from pbm_emergo.app.submit import confirm, submit
from pbm_emergo.game.requests import (
    AnalyseRequest,
    AutoplayRequest,
    BoardRef,
    ConfirmMoveRequest,
    MoveRequest,
    QueueRequest,
    SubmitRequest,
)
from pbm_emergo.views import i18n


@handles(MoveRequest)
def move(ctx: Context, request: MoveRequest) -> Result:
    """The board, then the login, then the move: in that order a player sees the refusals.
    The board is read as values (its snapshot and its players' accounts), once."""
    userid = request.userid

    def number_after_the_board(number: int, ply: int, upto: int) -> str:
        return i18n._(
            "Write the move number after the move, not after the board: emergo move "
            "%(board)s %(userid)s PASSWORD MOVE#%(number)s.",
            board=number, userid=userid, number=upto,
        )

    read = resolve.board_read(
        ctx, BoardRef(request.board, request.upto), alone=number_after_the_board
    )
    player = login_seated(ctx, userid, request.password, read)
    return play(ctx, player, read.snapshot, request.move)


@handles(QueueRequest)
def queue(ctx: Context, request: QueueRequest) -> Result:
    userid = request.userid

    def number_after_the_board(number: int, ply: int, upto: int) -> str:
        return i18n._(
            "Write the move number after the move, not after the board: emergo queue "
            "%(board)s %(userid)s PASSWORD MOVE#%(number)s.",
            board=number, userid=userid, number=ply + 2,
        )

    read = resolve.board_read(ctx, request.board, alone=number_after_the_board)
    player = login_seated(ctx, userid, request.password, read)
    return queue_moves(ctx, player, read, list(request.moves))


@handles(AutoplayRequest)
def autoplay(ctx: Context, request: AutoplayRequest) -> Result:
    return set_autoplay(ctx, login(ctx, request).account, request.on)


@handles(AnalyseRequest)
def analyse(ctx: Context, request: AnalyseRequest) -> Result:
    read = resolve.board_read(ctx, request.board, alone=True)
    player = login_seated(ctx, request.userid, request.password, read)
    return analysis.request(ctx, read, player)


@handles(SubmitRequest)
def submit_move(ctx: Context, request: SubmitRequest) -> Result:
    read = resolve.board_read(ctx, request.board, alone=True)
    player = login_seated(ctx, request.userid, request.password, read)
    return submit(ctx, player, read, request.move)


@handles(ConfirmMoveRequest)
def confirm_move(ctx: Context, request: ConfirmMoveRequest) -> Result:
    read = resolve.board_read(ctx, request.board, alone=True)
    player = login_seated(ctx, request.userid, request.password, read)
    return confirm(ctx, player, read)
