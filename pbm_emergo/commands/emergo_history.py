"""``emergo history [userid ...]``: the finished games, newest first."""

from __future__ import annotations

from pbm_emergo.app.accounts import require_player
from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.grammar import USERID, Grammar, repeated
from pbm_emergo.db import reads
from pbm_emergo.db.reads import BoardLine
from pbm_emergo.views.templating import render


def result_text(row: BoardLine) -> str:
    """``alice won (resigned)`` or ``draw (draw agreed)``."""
    who = f"{row.winner} won" if row.winner else "draw"
    return f"{who} ({row.reason})" if row.reason else who


def points_text(row: BoardLine) -> str:
    """``alice +16, bob -16``; ``unrated`` for an unrated game."""
    if not row.rated or row.white_change is None or row.black_change is None:
        return "unrated"
    return f"{row.white} {row.white_change:+d}, {row.black} {row.black_change:+d}"


class HistoryCommand(Command):
    name = "emergo history"
    grammar = Grammar(repeated(USERID, 0))
    description = "the finished games, newest first: date, board, players, result, points"
    details = (
        f"One line per finished game, the most recently finished first (at most "
        f"{reads.HISTORY_LIMIT}): the date it ended, the board, the players (Ohs first), "
        "the result (who won, or draw) and how it ended, and the rating points each player "
        "won or lost ('unrated' for an -unrated board). 'emergo history alice' lists only "
        "alice's games; several userids list the games of any of them. Declined boards "
        "are not listed."
    )
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        found = [require_player(ctx, userid) for userid in args]
        rows = reads.finished_games(
            ctx.session, [p.id for p in found] if found else None,
            limit=reads.HISTORY_LIMIT + 1,
        )
        lines = [
            {
                "date": row.last_activity.strftime("%Y-%m-%d"),
                "number": row.number,
                "players": f"{row.white} - {row.black}",
                "result": result_text(row),
                "points": points_text(row),
            }
            for row in rows[: reads.HISTORY_LIMIT]
        ]
        return Result(
            summary=f"sent the history ({len(lines)} game{'s' if len(lines) != 1 else ''})",
            answer=render(
                "history.txt.j2",
                rows=lines,
                userids=[p.userid for p in found],
                truncated=len(rows) > reads.HISTORY_LIMIT,
                limit=reads.HISTORY_LIMIT,
            ),
            answer_subject="Emergo history",
        )
