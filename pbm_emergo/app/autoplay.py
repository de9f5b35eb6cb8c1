"""Autoplay: forced moves played for the player.

With autoplay on, whenever the player is to move and has exactly one legal move (frequent
in Emergo, where captures are compulsory), the server plays it for them at once, marked
``(Forced)`` (:mod:`pbm_emergo.app.chain`). Switching it on also plays the forced moves
due now on the player's boards.
"""

from __future__ import annotations

from pbm_emergo.app.chain import follow
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.db.reads.turns import boards_to_move
from pbm_emergo.game.board_changes import AutoplaySet
from pbm_emergo.views import i18n
from pbm_emergo.views.templating import render


def set_autoplay(ctx: UnitOfWork, player: Account, on: bool) -> Result:
    """Switch the player's autoplay on or off; on also plays the forced moves due now."""
    setting = "on" if on else "off"
    player_id = player.id
    ctx.write(AutoplaySet(player_id, on))
    played: list[int] = []
    replies: list[Reply] = []
    if on:
        # The forced moves due now, played as if autoplay had been on all along: a board
        # where the player is to move with one legal move is read whole.
        for turn in boards_to_move(ctx.session, player_id):
            if len(turn.position.legal_moves()) != 1:
                continue
            read = read_board(ctx.session, turn.number)
            if read is None:
                continue
            result = follow(ctx, read.snapshot, autoplay_on=frozenset({player_id}))
            if result is not None:
                played.append(turn.number)
                replies.extend(result.replies)
    return Result(
        said=lambda: i18n._(
            "autoplay %(setting)s for %(userid)s", setting=setting, userid=player.userid
        ),
        answer=render("autoplay.txt.j2", userid=player.userid, on=on, played=played),
        answer_subject=f"Emergo autoplay {setting} for {player.userid}",
        replies=replies,
    )
