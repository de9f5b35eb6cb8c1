"""``list``: the games this server hosts and how busy they are."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.db import games, players
from pbm_emergo.db.models import BOARD_ACTIVE, BOARD_FINISHED
from pbm_emergo.views.templating import render


class ListCommand(Command):
    name = "list"
    description = "the games this server hosts and how many boards are active"

    def process(self, ctx: Context, args: Arguments) -> Result:
        counts = games.count_by_status(ctx.session)
        return Result(
            summary="sent the list of games",
            answer=render(
                "list.txt.j2",
                games=[
                    {
                        "name": "emergo",
                        "active": counts.get(BOARD_ACTIVE, 0),
                        "finished": counts.get(BOARD_FINISHED, 0),
                    }
                ],
                players=players.count_active(ctx.session),
            ),
            answer_subject="Emergo: games on this server",
        )
