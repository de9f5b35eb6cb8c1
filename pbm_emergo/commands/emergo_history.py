"""``emergo history [userid ...]``: the finished games, newest first."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import USERID, Grammar, repeated
from pbm_emergo.game.numbers import HISTORY_LIMIT
from pbm_emergo.game.requests import HistoryRequest


class HistoryCommand(Command):
    name = "emergo history"
    grammar = Grammar(repeated(USERID, 0))
    description = "the finished games, newest first: date, board, players, result, points"
    details = (
        f"One line per finished game, the most recently finished first (at most "
        f"{HISTORY_LIMIT}): the date it ended, the board, the players (Ohs first), "
        "the result (who won, or draw) and how it ended, and the rating points each player "
        "won or lost ('unrated' for an -unrated board). 'emergo history alice' lists only "
        "alice's games; several userids list the games of any of them. Declined boards "
        "are not listed."
    )
    section = "emergo"

    def request(self, args: Arguments) -> HistoryRequest:
        return self.made(HistoryRequest, userids=args.words)
