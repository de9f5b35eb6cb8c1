"""``emergo standings [userid ...]`` (also ``emergo ratings``): the rating table."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import USERID, Grammar, repeated
from pbm_emergo.game.numbers import (
    INACTIVE_DAYS,
    PROVISIONAL_DEVIATION,
    START_DEVIATION,
    START_RATING,
)
from pbm_emergo.game.requests import StandingsRequest


class StandingsCommand(Command):
    name = "emergo standings"
    grammar = Grammar(repeated(USERID, 0))
    description = (
        "the rating table: rank, rating, deviation, won, lost, drawn, active boards, seeking "
        "(also emergo ratings)"
    )
    details = (
        f"The Glicko-2 rating table (also 'emergo ratings'). Everyone starts at "
        f"{START_RATING} with a rating deviation (RD) of {START_DEVIATION:.0f}; each rated "
        "game makes the deviation smaller, and a rating is provisional while its RD is "
        f"above {PROVISIONAL_DEVIATION}; unrated boards do "
        "not count. Columns: rank, userid, rating, RD, games won, lost and drawn, active "
        "boards, and how many more games the player seeks (emergo seek); the robots' "
        "ladder ratings, measured robot against robot, follow the table. Established "
        "players come first, then provisional ones, then players with no rated game in "
        f"the last {INACTIVE_DAYS} days (inactive). 'emergo standings alice bob' "
        "shows just those players' lines."
    )
    section = "emergo"

    def request(self, args: Arguments) -> StandingsRequest:
        return self.made(StandingsRequest, userids=args.words)



class RatingsCommand(StandingsCommand):
    name = "emergo ratings"
    description = "the same as emergo standings"
    listed = False
