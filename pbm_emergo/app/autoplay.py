"""Autoplay: forced moves played for the player.

With autoplay on, whenever the player is to move and has exactly one legal move (frequent
in Emergo, where captures are compulsory), the server plays it for them at once, marked
``(Forced)`` (:mod:`pbm_emergo.app.chain`). Switching it on also plays the forced moves
due now on the player's boards.
"""

from __future__ import annotations

from pbm_emergo.app.boards import read_snapshot
from pbm_emergo.app.chain import follow
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import games
from pbm_emergo.db.models import BOARD_ACTIVE, Player
from pbm_emergo.game.board_changes import AutoplaySet
from pbm_emergo.views import i18n
from pbm_emergo.views.templating import render


def set_autoplay(ctx: UnitOfWork, player: Player, on: bool) -> Result:
    """Switch the player's autoplay on or off; on also plays the forced moves due now."""
    setting = "on" if on else "off"
    player_id = player.id
    ctx.write(AutoplaySet(player_id, on))
    played: list[int] = []
    replies: list[Reply] = []
    if on:
        # The forced moves due now, played as if autoplay had been on all along.
        for board in games.boards_of(ctx.session, player, BOARD_ACTIVE):
            if board.to_move is None or board.player_of(board.to_move).id != player_id:
                continue
            game = games.resume_game(ctx.session, board)
            if len(game.position.legal_moves()) != 1:
                continue
            snapshot = read_snapshot(ctx.session, board)
            result = follow(ctx, snapshot, autoplay_on=frozenset({player_id}))
            if result is not None:
                played.append(board.number)
                replies.extend(result.replies)
    return Result(
        said=lambda: i18n._(
            "autoplay %(setting)s for %(userid)s", setting=setting, userid=player.userid
        ),
        answer=render("autoplay.txt.j2", userid=player.userid, on=on, played=played),
        answer_subject=f"Emergo autoplay {setting} for {player.userid}",
        replies=replies,
    )
