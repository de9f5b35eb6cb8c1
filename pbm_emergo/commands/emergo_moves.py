"""``emergo moves board``: the legal moves of the player to move."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, Grammar
from pbm_emergo.game.requests import MovesRequest


class MovesCommand(Command):
    name = "emergo moves"
    grammar = Grammar(BOARD)
    description = "the legal moves of the player to move"
    section = "emergo"

    def request(self, args: Arguments) -> MovesRequest:
        return self.made(MovesRequest, board=args.board())
