"""``emergo submit board userid password MOVE[#n]``: a move stored to be played only when
confirmed (``emergo confirm``), answered with the board it would make."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.game.requests import SubmitRequest


class SubmitCommand(Command):
    name = "emergo submit"
    grammar = Grammar(BOARD, USERID, PASSWORD, named(WORD, "MOVE[#n]"))
    description = "a move played only when you confirm it (emergo confirm): a safety net"
    details = (
        "Checks MOVE as 'emergo move' would, stores it and answers with the board it would "
        "make; nothing is played and your opponent is not told. 'emergo confirm board "
        "userid password' then plays it (with this mail's comment). A new submission on "
        "the board replaces the earlier one; a move played or taken back on the board "
        "before you confirm drops it."
    )
    section = "emergo"

    def request(self, args: Arguments) -> SubmitRequest:
        userid, password = args.login()
        return self.made(
            SubmitRequest,
            board=args.board(),
            userid=userid,
            password=password,
            move=args.word("move"),
        )
