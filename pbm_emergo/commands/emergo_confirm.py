"""``emergo confirm board userid password``: play the move submitted with ``emergo
submit``."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, Grammar
from pbm_emergo.game.requests import ConfirmMoveRequest


class ConfirmMoveCommand(Command):
    name = "emergo confirm"
    grammar = Grammar(BOARD, USERID, PASSWORD)
    description = "play the move you submitted on that board"
    details = (
        "Plays the move you sent with 'emergo submit' on the board, as 'emergo move' "
        "would, with the comment of the submission (or of this mail, if it has one). If a "
        "move was played or taken back on the board since you submitted, nothing is "
        "played and the submission is dropped."
    )
    section = "emergo"

    def request(self, args: Arguments) -> ConfirmMoveRequest:
        userid, password = args.login()
        return self.made(ConfirmMoveRequest, board=args.board(), userid=userid, password=password)
