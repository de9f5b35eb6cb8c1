"""``emergo rematch board userid password``: a new game after a finished one, colours
swapped, the same options."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, Grammar
from pbm_emergo.game.requests import RematchRequest


class RematchCommand(Command):
    name = "emergo rematch"
    grammar = Grammar(BOARD, USERID, PASSWORD)
    description = "a new game against the same opponent, colours swapped, the same options"
    details = (
        "By either player of a finished board: a new board against the same opponent, "
        "who now plays the other colour, with the options of the finished game (rated or "
        "not, the blocked rule, the reminder, forfeit and total times). It is a challenge: "
        "the opponent's challenge settings apply, both players get the new board, and the "
        "opponent accepts by moving or declines by resigning before their first move."
    )
    section = "emergo"

    def request(self, args: Arguments) -> RematchRequest:
        userid, password = args.login()
        return self.made(RematchRequest, board=args.board(), userid=userid, password=password)
