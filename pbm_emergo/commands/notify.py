"""``emergo notify userid password [board ...]``: toggle the final board mail of every
finished game on the server, or of those boards only."""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Refused, Result
from pbm_emergo.commands.subscribe import boards_text
from pbm_emergo.db import spectators
from pbm_emergo.db.models import BOARD_ACTIVE
from pbm_emergo.game.accounts import authenticate
from pbm_emergo.game.boards import get_board
from pbm_emergo.views.templating import render


class NotifyCommand(Command):
    name = "emergo notify"
    argument_description = "userid password [board ...]"
    description = "toggle the final board mail of every finished game (or of those boards)"
    details = (
        "Without boards: turns on (or, sent again, off) the final board mail of every game "
        "that ends on this server, including games started later. With board numbers: "
        "turns it on or off for each of those boards (active boards only). You need not "
        "play on them; your own games' board mails come anyway."
    )
    section = "emergo"
    secret_args = (1,)
    credential_args = (0, 1)
    min_args = 2

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        numbers: list[int] = []
        for word in args[2:]:
            if not word.isdigit():
                raise self.usage_error(
                    f"'{word[:40]}' is not a board number: emergo notify USERID PASSWORD "
                    "[BOARD ...]."
                )
            board, _ = get_board(ctx, word)
            if board.status != BOARD_ACTIVE:
                raise Refused(
                    f"The game on board {board.number} is over already.", board=board.number
                )
            if board.number not in numbers:
                numbers.append(board.number)
        player = authenticate(ctx, args[0], args[1])
        current = spectators.notifications_of(ctx.session, player.id)
        toggled: list[int | None] = list(numbers) if numbers else [None]
        on = [n for n in toggled if n not in current]
        off = [n for n in toggled if n in current]
        player_id, now = player.id, ctx.now

        def store(session: Session) -> None:
            for number in on:
                spectators.add_notification(session, player_id, number, now)
            spectators.remove_notifications(session, player_id, off)

        ctx.write(store)
        after = [n for n in current if n not in off] + on
        after.sort(key=lambda n: (n is not None, n or 0))
        lines = []
        if on:
            lines.append(f"On: the final board mail of {_games(on)}.")
        if off:
            lines.append(f"Off: no more final board mail of {_games(off)}.")
        return Result(
            summary="; ".join(lines),
            answer=render(
                "notify.txt.j2",
                userid=player.userid,
                lines=lines,
                every=None in after,
                boards=[n for n in after if n is not None],
            ),
            answer_subject=f"Emergo notices of {player.userid}",
        )


def _games(numbers: list[int | None]) -> str:
    return "every finished game" if None in numbers else boards_text(numbers)
