"""``emergo showas board userid``: the board as one of its players sees it."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, USERID, Grammar
from pbm_emergo.game.requests import ShowAsRequest


class ShowAsCommand(Command):
    name = "emergo showas"
    grammar = Grammar(BOARD, USERID)
    description = "the board as that player of it sees it, from their side of the table"
    details = (
        "'emergo showas 101 bob' sends board 101 as bob, a player of it, sees it: whose "
        "turn it is said from bob's side, and, for the player of Eks, the text board turned "
        "round (row I at the top, column 9 on the left; the cells keep their names). "
        "Nothing private is shown: queued moves only go to their owner."
    )
    section = "emergo"

    def request(self, args: Arguments) -> ShowAsRequest:
        return self.made(ShowAsRequest, board=args.board(), userid=args.word("userid"))
