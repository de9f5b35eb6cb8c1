"""``emergo games [userid ...] [all|active|inactive|next]``: a table of boards."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.emergo_show import FILTER, split_filter
from pbm_emergo.commands.grammar import USERID, Grammar, repeated
from pbm_emergo.game.requests import GamesRequest


class GamesCommand(Command):
    name = "emergo games"
    grammar = Grammar(repeated(USERID, 0), FILTER)
    description = "a table of boards: number, move, players, status"
    section = "emergo"

    def request(self, args: Arguments) -> GamesRequest:
        userids, which = split_filter(list(args))
        return self.made(GamesRequest, userids=tuple(userids), which=which)
