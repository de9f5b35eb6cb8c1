"""``signoff userid password``: leave the server; active games are resigned."""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Result
from pbm_emergo.db import games, players, ratings
from pbm_emergo.db.models import BOARD_ACTIVE
from pbm_emergo.game.accounts import authenticate
from pbm_emergo.game.boards import board_mails, other_side
from pbm_emergo.game.messages import Reply
from pbm_emergo.game.play import Turn
from pbm_emergo.rules import Termination
from pbm_emergo.views.templating import render


class SignoffCommand(Command):
    name = "signoff"
    argument_description = "userid password"
    description = "leave the server: your active games are resigned, your history is kept"
    secret_args = (1,)
    credential_args = (0, 1)
    min_args = max_args = 2

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        userid, password = args
        player = authenticate(ctx, userid, password)
        replies: list[Reply] = []
        resigned: list[int] = []
        # Each resignation moves the ratings the next one starts from.
        standing: dict[int, ratings.Standing] = {}
        for board in games.boards_of(ctx.session, player, BOARD_ACTIVE):
            turn = Turn(ctx, board, player)
            winner = other_side(turn.state.side_of(player.id) or "")
            rating = None
            if board.rated:
                white, black = (
                    standing.get(p.id, ratings.Standing(p.rating, p.rated_games))
                    for p in (board.white_player, board.black_player)
                )
                rating = ratings.game_rating(white, black, winner)
                standing[board.white_player_id] = white.after(rating.white_change)
                standing[board.black_player_id] = black.after(rating.black_change)
            state = turn.finish(turn.state, winner, Termination.RESIGNED, rating)
            replies += board_mails(
                ctx, state, headline=f"{player.userid} signed off and resigned this game."
            )
            resigned.append(board.number)
        player_id, now = player.id, ctx.now

        def store(session: Session) -> None:
            players.sign_off(session, player_id, now)

        ctx.write(store)
        return Result(
            summary=f"signed off {player.userid}",
            answer=render("signoff.txt.j2", userid=player.userid, resigned=resigned),
            answer_subject=f"Emergo: goodbye {player.userid}",
            replies=replies,
        )
