"""``emergo notify userid password [board ...]``: toggle the final board mail of every
finished game on the server, or of those boards only."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, Grammar, repeated
from pbm_emergo.game.requests import NotifyRequest


class NotifyCommand(Command):
    name = "emergo notify"
    grammar = Grammar(USERID, PASSWORD, repeated(BOARD, 0))
    description = "toggle the final board mail of every finished game (or of those boards)"
    details = (
        "Without boards: turns on (or, sent again, off) the final board mail of every game "
        "that ends on this server, including games started later. With board numbers: "
        "turns it on or off for each of those boards (active boards only). You need not "
        "play on them; your own games' board mails come anyway."
    )
    section = "emergo"

    def request(self, args: Arguments) -> NotifyRequest:
        # The board words as written: the shell checks and looks them up word by word.
        userid, password = args.login()
        return self.made(
            NotifyRequest, userid=userid, password=password, boards=tuple(args.words_of("board"))
        )
