"""A player's rating graph: inline SVG made on the server (the pages load no script and
nothing from elsewhere, as for :mod:`pbm_emergo.web.graph`). Pure: the rating history in,
markup out.

The x axis holds the player's rated games in order (the start, then one point a game, its
tooltip the date, the board and the rating after it), the y axis the rating, from the
lowest to the highest the player had, widened to at least :data:`MIN_SPAN` points so that a
few points' change does not look like a cliff. The colours are the page's style sheet's
(``svg.graph``), so the graph follows its light and dark modes.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from markupsafe import Markup

from pbm_emergo.db.reads import RatingRow
from pbm_emergo.views import i18n
from pbm_emergo.web import words

# The drawing's own units (the SVG scales to the page's width).
WIDTH, HEIGHT = 440, 160
LEFT, RIGHT, TOP, BOTTOM = 40, 8, 12, 22
# The y axis spans at least this many rating points.
MIN_SPAN = 100


def rating_graph(history: Sequence[RatingRow]) -> Markup | None:
    """The graph of ``history`` (oldest first) as inline SVG; None without a rated game."""
    if not history:
        return None
    ratings = [history[0].before] + [row.after for row in history]
    low, high = min(ratings), max(ratings)
    if high - low < MIN_SPAN:
        middle = (high + low) / 2
        low, high = round(middle - MIN_SPAN / 2), round(middle + MIN_SPAN / 2)
    plot_width, plot_height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_width / (len(ratings) - 1)

    def x(index: int) -> float:
        return LEFT + index * step

    def y(rating: int) -> float:
        return TOP + (high - rating) / (high - low) * plot_height

    games = len(history)
    title = i18n.ngettext(
        "The rating after each of %(games)s rated game, from %(first)s to %(last)s",
        "The rating after each of %(games)s rated games, from %(first)s to %(last)s",
        games,
        games=words.number(games),
        first=words.number(ratings[0]),
        last=words.number(ratings[-1]),
    )
    parts = [
        f'<svg class="graph rating" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="rating-title"><title id="rating-title">{escape(title)}</title>',
    ]
    for rating in (high, low):
        parts.append(
            f'<line class="grid" x1="{LEFT}" y1="{y(rating):.1f}" x2="{WIDTH - RIGHT}" '
            f'y2="{y(rating):.1f}"/><text class="label" x="{LEFT - 4}" '
            f'y="{y(rating) + 4:.1f}" text-anchor="end">{words.number(rating)}</text>'
        )
    parts.append(
        f'<text class="label" x="{LEFT}" y="{HEIGHT - 6}">{escape(i18n._("start"))}</text>'
        f'<text class="label" x="{WIDTH - RIGHT}" y="{HEIGHT - 6}" text-anchor="end">'
        f"{escape(i18n._('game %(number)s', number=words.number(games)))}</text>"
    )
    curve = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, r in enumerate(ratings))
    parts.append(f'<polyline class="curve" points="{curve}"/>')
    for index, row in enumerate(history, start=1):
        values = {
            "date": words.day(row.at),
            "before": words.number(row.before),
            "after": words.number(row.after),
            "change": words.signed(row.after - row.before, 0),
        }
        point = (
            i18n._("%(date)s, board %(board)s: %(before)s -> %(after)s (%(change)s)",
                   board=row.board, **values)
            if row.board is not None
            else i18n._("%(date)s: %(before)s -> %(after)s (%(change)s)", **values)
        )  # fmt: skip
        title = escape(point)
        parts.append(
            f'<circle class="point" cx="{x(index):.1f}" cy="{y(row.after):.1f}" r="2.5">'
            f"<title>{title}</title></circle>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


__all__ = ["MIN_SPAN", "rating_graph"]
