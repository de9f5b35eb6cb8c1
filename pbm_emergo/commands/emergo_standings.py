"""``emergo standings [userid ...]`` (also ``emergo ratings``): the rating table."""

from __future__ import annotations

from pbm_emergo.app.accounts import require_player
from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.grammar import USERID, Grammar, repeated
from pbm_emergo.db import ratings, reads
from pbm_emergo.db.models import START_RATING
from pbm_emergo.robot.ladder import LADDER_EXPLANATION, ladder_texts
from pbm_emergo.views.templating import render

SECTION_TITLES = reads.SECTION_TITLES


class StandingsCommand(Command):
    name = "emergo standings"
    grammar = Grammar(repeated(USERID, 0))
    description = (
        "the rating table: rank, rating, won, lost, drawn, active boards, seeking "
        "(also emergo ratings)"
    )
    details = (
        f"The Elo rating table (also 'emergo ratings'). Everyone starts at {START_RATING}; "
        f"a rating is provisional for the first {ratings.PROVISIONAL_GAMES} rated games "
        f"(K={ratings.K_FACTOR_PROVISIONAL}, then K={ratings.K_FACTOR}); unrated boards do "
        "not count. Columns: rank, userid, rating, games won, lost and drawn, active "
        "boards, and how many more games the player seeks (emergo seek); the robots' "
        "ladder ratings, measured robot against robot, follow the table. Established "
        "players come first, then provisional ones, then players with no rated game in "
        f"the last {reads.INACTIVE_DAYS} days (inactive). 'emergo standings alice bob' "
        "shows just those players' lines."
    )
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        wanted = [require_player(ctx, userid).userid for userid in args]
        rows = reads.standings(ctx.session, ctx.now)
        if wanted:
            keys = {userid.lower() for userid in wanted}
            rows = [row for row in rows if row.userid.lower() in keys]
        sections = [
            {"title": SECTION_TITLES[name], "rows": [r for r in rows if r.section == name]}
            for name in reads.SECTIONS
        ]
        return Result(
            summary=f"sent the standings ({len(rows)} player{'s' if len(rows) != 1 else ''})",
            answer=render(
                "standings.txt.j2",
                sections=[s for s in sections if s["rows"]],
                userids=wanted,
                start=START_RATING,
                provisional_games=ratings.PROVISIONAL_GAMES,
                inactive_days=reads.INACTIVE_DAYS,
                ladder=ladder_texts(row.userid for row in rows),
                ladder_explanation=LADDER_EXPLANATION,
            ),
            answer_subject="Emergo standings",
        )


class RatingsCommand(StandingsCommand):
    name = "emergo ratings"
    description = "the same as emergo standings"
    listed = False
