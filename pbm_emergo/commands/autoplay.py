"""``emergo autoplay userid password on|off``: forced moves played for the player.

With autoplay on, whenever the player is to move and has exactly one legal move (frequent
in Emergo, where captures are compulsory), the server plays it for them at once, marked
``(Forced)`` (:mod:`pbm_emergo.game.chain`). Switching it on also plays the forced
moves due now on the player's boards.
"""

from __future__ import annotations

from pbm_emergo.commands.base import Command, Context, Result
from pbm_emergo.db import autoplay, games
from pbm_emergo.db.models import BOARD_ACTIVE
from pbm_emergo.game.accounts import authenticate
from pbm_emergo.game.boards import BoardState
from pbm_emergo.game.chain import follow
from pbm_emergo.game.messages import Reply
from pbm_emergo.views.templating import render


class AutoplayCommand(Command):
    name = "emergo autoplay"
    argument_description = "userid password on|off"
    description = "on: your forced moves (your only legal move) are played for you (Forced)"
    details = (
        "With autoplay on, whenever it is your turn on a board and you have exactly one legal "
        "move (a compulsory capture with one route, say), the server plays it for you at once "
        "and marks it (Forced) in the move list; chains of forced and queued moves are played "
        "in one go and the board mail lists every move. Switching it on also plays the "
        "forced moves due now on your boards. Default: off."
    )
    section = "emergo"
    secret_args = (1,)
    credential_args = (0, 1)
    min_args = max_args = 3

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        setting = args[2].lower()
        if setting not in ("on", "off"):
            raise self.usage_error(
                "Write on or off after the password: emergo autoplay userid password on|off."
            )
        player = authenticate(ctx, args[0], args[1])
        on, player_id = setting == "on", player.id
        ctx.write(lambda s: autoplay.set_autoplay(s, player_id, on))
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
                state = BoardState.load(ctx.session, board)
                result = follow(ctx, board, state, game, autoplay_on=frozenset({player_id}))
                if result is not None:
                    played.append(board.number)
                    replies.extend(result.replies)
        return Result(
            summary=f"autoplay {setting} for {player.userid}",
            answer=render("autoplay.txt.j2", userid=player.userid, on=on, played=played),
            answer_subject=f"Emergo autoplay {setting} for {player.userid}",
            replies=replies,
        )
