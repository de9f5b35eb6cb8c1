"""``emergo preview board[#n] MOVE ...``: the board after trying moves; nothing is saved."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, WORD, Grammar, named, repeated
from pbm_emergo.game.requests import PreviewRequest

MAX_PREVIEW_MOVES = 30


class PreviewCommand(Command):
    name = "emergo preview"
    grammar = Grammar(
        named(BOARD, "board[#n]"), repeated(named(WORD, "MOVE"), 1, MAX_PREVIEW_MOVES)
    )
    description = "the board after trying these moves (from move n if given); nothing is saved"
    section = "emergo"

    def request(self, args: Arguments) -> PreviewRequest:
        return self.made(PreviewRequest, board=args.board(), moves=tuple(args.words_of("move")))
