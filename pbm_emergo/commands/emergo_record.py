"""``emergo record board``: the whole game record in notation."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, Grammar
from pbm_emergo.game.requests import RecordRequest


class RecordCommand(Command):
    name = "emergo record"
    grammar = Grammar(BOARD)
    description = "the whole game record in notation"
    section = "emergo"

    def request(self, args: Arguments) -> RecordRequest:
        return self.made(RecordRequest, board=args.board())
