"""Playing on a board: a move, resigning, a draw offered or answered, a move taken back.

The decisions are the pure core's (:mod:`pbm_emergo.game.play`); this is the shell around
them: read the board's snapshot once, decide, render the events into the board mails, hand
the changes to the unit of work. :func:`play` is what ``emergo move`` asks for, once the
command read the board and logged the player in; the robots' runner takes
:func:`robot_action`, and signing off, withdrawing and an operator's deletion
:func:`resign_all`.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbm_emergo.app.decisions import carry_out, event_mails
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.game.board import BoardSnapshot
from pbm_emergo.game.decision import Decision
from pbm_emergo.game.play import (
    KEYWORDS,
    Play,
    decide_move,
    decide_robot_action,
)
from pbm_emergo.game.play import resign_all as decide_resign_all
from pbm_emergo.game.sentences import moves_in_lines
from pbm_emergo.ratings import game_rating
from pbm_emergo.telemetry.sections import timed

__all__ = [
    "KEYWORDS",
    "moves_in_lines",
    "play",
    "resign_all",
    "robot_action",
]


def play(
    ctx: UnitOfWork, player: Account, snapshot: BoardSnapshot, move: str, *,
    comment: str | None = None,
) -> Result:
    """Everything ``emergo move`` does once the board was read and the player logged in:
    ``move`` (``MOVE[#n]`` or a keyword) played by ``player`` on the board of ``snapshot``
    (read with its queued moves; ``comment``: the move's comment, else the mail's)."""
    comment = ctx.comment if comment is None else comment
    request = Play.parse(snapshot.state.number, player.id, player.userid, move, comment)

    def decide() -> Decision:
        if request.keyword is None:
            with timed("rules"):
                return decide_move(snapshot, request, ctx.now)
        return decide_move(snapshot, request, ctx.now)

    return carry_out(ctx, snapshot.state, decide)


def robot_action(
    ctx: UnitOfWork, snapshot: BoardSnapshot, robot_id: int, kind: str, notation: str = ""
) -> Result:
    """The robot ``robot_id``'s action on the board of ``snapshot`` (read with its queued
    moves), checked by the caller to be due: ``kind`` "move" (``notation``), "resign",
    "accept" or "reject"."""
    now = ctx.now

    def decide() -> Decision:
        if kind == "move":
            with timed("rules"):
                return decide_robot_action(snapshot, robot_id, kind, notation, now)
        return decide_robot_action(snapshot, robot_id, kind, notation, now)

    return carry_out(ctx, snapshot.state, decide)


def resign_all(
    ctx: UnitOfWork, player_id: int, numbers: Sequence[int], headline: str
) -> list[Reply]:
    """Resign each of the boards ``numbers`` for the player ``player_id`` (signing off,
    withdrawing from an event, an operator's deletion): the final board mails, each with
    ``headline``. Each resignation moves the ratings the next one starts from."""
    reads = (read_board(ctx.session, number) for number in numbers)
    snapshots = [read.snapshot for read in reads if read is not None]
    replies: list[Reply] = []
    for decision in decide_resign_all(snapshots, player_id, headline, ctx.now, game_rating):
        for change in decision.changes:
            ctx.write(change)
        replies += event_mails(ctx, decision.events)
    return replies

