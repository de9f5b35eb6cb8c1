"""``emergo games [userid ...] [all|active|inactive|next]``: a table of boards."""

from __future__ import annotations

from pbm_emergo.app.accounts import require_player
from pbm_emergo.app.boards import SIDE_NAMES
from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.emergo_show import FILTER, boards_for, split_filter
from pbm_emergo.commands.grammar import USERID, Grammar, repeated
from pbm_emergo.db import games
from pbm_emergo.db.models import BOARD_ACTIVE, BOARD_FINISHED, Board
from pbm_emergo.views.templating import render

MAX_ROWS = 200


def status_text(board: Board) -> str:
    if board.status == BOARD_ACTIVE and board.to_move:
        return f"{board.player_of(board.to_move).userid} to move"
    if board.winner:
        return f"{board.player_of(board.winner).userid} won ({board.outcome_reason})"
    return f"draw ({board.outcome_reason})"


class GamesCommand(Command):
    name = "emergo games"
    grammar = Grammar(repeated(USERID, 0), FILTER)
    description = "a table of boards: number, move, players, status"
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        userids, which = split_filter(list(args))
        boards: dict[int, Board] = {}
        if userids:
            for userid in userids:
                player = require_player(ctx, userid)
                boards.update((b.number, b) for b in boards_for(ctx, player, which))
        else:
            status = {"all": None, "inactive": BOARD_FINISHED}.get(which, BOARD_ACTIVE)
            found = games.boards(ctx.session, status=status, limit=MAX_ROWS + 1)
            if which == "next":
                found = [b for b in found if b.to_move]
            boards.update((b.number, b) for b in found)
        rows = [
            {
                "number": b.number,
                "move": b.ply + 1 if b.status == BOARD_ACTIVE else b.ply,
                "white": b.white_player.userid,
                "black": b.black_player.userid,
                "status": status_text(b),
            }
            for b in sorted(boards.values(), key=lambda b: b.number)[:MAX_ROWS]
        ]
        return Result(
            summary=f"sent a table of {len(rows)} board{'s' if len(rows) != 1 else ''}",
            answer=render(
                "games.txt.j2",
                rows=rows,
                which=which,
                userids=userids,
                white=SIDE_NAMES["white"],
                black=SIDE_NAMES["black"],
                truncated=len(boards) > MAX_ROWS,
                limit=MAX_ROWS,
            ),
            answer_subject="Emergo games",
        )
