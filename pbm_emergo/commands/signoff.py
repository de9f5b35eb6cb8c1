"""``signoff userid password``: leave the server; active games are resigned."""

from __future__ import annotations

from pbm_emergo.commands.accounts import authenticate
from pbm_emergo.commands.api import Reply
from pbm_emergo.commands.base import Command, Context, Result
from pbm_emergo.commands.boards import board_mails
from pbm_emergo.db import service
from pbm_emergo.db.models import BLACK, BOARD_ACTIVE, WHITE
from pbm_emergo.render import render


class SignoffCommand(Command):
    name = "signoff"
    argument_description = "userid password"
    description = "leave the server: your active games are resigned, your history is kept"
    secret_args = (1,)
    min_args = max_args = 2

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        userid, password = args
        player = authenticate(ctx, userid, password)
        replies: list[Reply] = []
        resigned: list[int] = []
        for board in service.boards_of(ctx.session, player, BOARD_ACTIVE):
            winner = BLACK if board.white_player_id == player.id else WHITE
            service.finish_board(ctx.session, board, winner, "resigned", ctx.now)
            game = service.load_game(ctx.session, board)
            replies += board_mails(
                ctx, board, game, headline=f"{player.userid} signed off and resigned this game."
            )
            resigned.append(board.number)
        player.signed_off_at = ctx.now
        return Result(
            summary=f"signed off {player.userid}",
            answer=render("signoff.txt.j2", userid=player.userid, resigned=resigned),
            answer_subject=f"Emergo: goodbye {player.userid}",
            replies=replies,
        )
