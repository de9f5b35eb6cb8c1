"""``board USERID PASSWORD list|diagram``: how the player's board mails show the position."""

from __future__ import annotations

from pbm_emergo.app.results import Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.game.board_changes import BoardStyleSet
from pbm_emergo.rules import Position, position_words, render_board
from pbm_emergo.views import i18n
from pbm_emergo.views.templating import render


def set_board_style(ctx: UnitOfWork, player: Account, style: str) -> Result:
    """Store the style; the answer shows the empty board as the player's mails will."""
    ctx.write(BoardStyleSet(player.id, style))
    start = Position()
    example = position_words(start) if style == "list" else render_board(start)
    return Result(
        said=lambda: i18n._("board %(style)s for %(userid)s", style=style, userid=player.userid),
        answer=render("board_style.txt.j2", userid=player.userid, style=style, example=example),
        answer_subject=f"Emergo board {style} for {player.userid}",
    )
