"""``emergo analyse board userid password`` (also ``analyze``): the engine's notes on a
finished game of one's own, made off the mail path (see :mod:`pbm_emergo.app.analysis`)."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, Grammar
from pbm_emergo.game.requests import AnalyseRequest


class AnalyseCommand(Command):
    name = "emergo analyse"
    grammar = Grammar(BOARD, USERID, PASSWORD)
    description = (
        "the engine's notes on every move of a finished game of yours, by mail (also "
        "emergo analyze)"
    )
    details = (
        "By either player of a finished board (also 'emergo analyze'). The engine looks "
        "at every move: its value after it, the moves that lost most (inaccuracy, "
        "mistake, blunder), the better move and its line, and a summary for each "
        "player, with the board at the turning point. The request is answered at once "
        "with when to expect the analysis, which comes in its own mail (Subject 'Emergo "
        "analysis N'). A few analyses a player a day; an analysis already made is sent "
        "again at once and counts nothing."
    )
    section = "emergo"

    def request(self, args: Arguments) -> AnalyseRequest:
        userid, password = args.login()
        return self.made(AnalyseRequest, board=args.board(), userid=userid, password=password)

class AnalyzeCommand(AnalyseCommand):
    """The American spelling."""

    name = "emergo analyze"
    listed = False
