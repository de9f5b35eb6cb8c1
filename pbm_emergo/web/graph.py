"""The evaluation graph of an analysed board: inline SVG made here, on the server, since the
pages may load no script and nothing from elsewhere (the Content-Security-Policy of
:mod:`pbm_emergo.web.app`). Pure: notes in, markup out.

The x axis holds the moves, each a link to ``?move=n`` (the whole column of the move is the
link, so that a finger on a phone finds it); the y axis the engine's value after the move
from Ohs's side, in men, from ``-scale`` to ``+scale``: ``scale`` is the largest value of the
game rounded up to a whole man, at least 1 and at most :data:`MAX_SCALE`, and what lies
beyond (a win by force) is drawn at the edge. The colours are the page's style sheet's
(``svg.graph`` in ``base.html.j2``), so the graph follows its light and dark modes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from markupsafe import Markup

from pbm_emergo.db.reads import MoveNote
from pbm_emergo.views import i18n
from pbm_emergo.web import words

#: The widest scale, in men (the analysis cuts values to 10 men).
MAX_SCALE = 10
# The drawing's own units (the SVG scales to the page's width).
WIDTH, HEIGHT = 440, 180
LEFT, RIGHT, TOP, BOTTOM = 30, 6, 12, 22
# Steps between the numbered moves on the x axis: the first that leaves at most 10 labels.
TICK_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000)


def value_text(note: MoveNote) -> str:
    """The value after the move for people: ``+1.35`` (Ohs ahead), ``-0.40`` (Eks ahead),
    or who wins by force."""
    if note.forced:
        return i18n._("Ohs wins by force") if note.ohs_score > 0 else i18n._("Eks wins by force")
    return words.signed(note.ohs_score / 100)


def graph_scale(notes: Sequence[MoveNote]) -> int:
    """The y axis's reach in men: the largest value not won by force, rounded up."""
    largest = max((abs(n.ohs_score) for n in notes if not n.forced), default=0)
    return max(1, min(MAX_SCALE, math.ceil(largest / 100)))


def _tick_step(moves: int) -> int:
    return next((s for s in TICK_STEPS if moves / s <= 10), TICK_STEPS[-1])


def evaluation_graph(notes: Sequence[MoveNote], players: tuple[str, str], shown: int) -> Markup:
    """The graph of ``notes`` (one point a move, in order) as inline SVG; ``players``
    (Ohs's and Eks's userids) name who played each move in its tooltip, and the move
    ``shown`` on the page is marked."""
    count = len(notes)
    scale = graph_scale(notes)
    plot_width, plot_height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_width / max(1, count)
    zero = TOP + plot_height / 2

    def x(number: int) -> float:
        return LEFT + (number - 0.5) * step

    def y(score: int) -> float:
        men = max(-scale, min(scale, score / 100))
        return zero - men / scale * plot_height / 2

    graph_title = i18n.ngettext(
        "The engine's value after the %(moves)s move, from Ohs's side, from -%(scale)s to "
        "+%(scale)s men",
        "The engine's value after each of the %(moves)s moves, from Ohs's side, from "
        "-%(scale)s to +%(scale)s men",
        count,
        moves=words.number(count),
        scale=words.number(scale),
    )
    parts = [
        f'<svg class="graph" viewBox="0 0 {WIDTH} {HEIGHT}" role="group" '
        f'aria-labelledby="graph-title"><title id="graph-title">{escape(graph_title)}</title>',
        f'<rect class="ohs" x="{LEFT}" y="{TOP}" width="{plot_width}" '
        f'height="{plot_height / 2:.1f}"/>',
        f'<rect class="eks" x="{LEFT}" y="{zero:.1f}" width="{plot_width}" '
        f'height="{plot_height / 2:.1f}"/>',
    ]
    for men, css in ((scale, "grid"), (0, "zero"), (-scale, "grid")):
        height = y(men * 100)
        label = words.signed(men, 0) if men else words.number(0)
        parts.append(
            f'<line class="{css}" x1="{LEFT}" y1="{height:.1f}" x2="{WIDTH - RIGHT}" '
            f'y2="{height:.1f}"/><text class="label" x="{LEFT - 4}" y="{height + 4:.1f}" '
            f'text-anchor="end">{label}</text>'
        )
    tick = _tick_step(count)
    for number in range(tick, count + 1, tick):
        parts.append(
            f'<text class="label" x="{x(number):.1f}" y="{HEIGHT - 6}" '
            f'text-anchor="middle">{words.number(number)}</text>'
        )
    if 1 <= shown <= count:
        parts.append(
            f'<line class="shown" x1="{x(shown):.1f}" y1="{TOP}" x2="{x(shown):.1f}" '
            f'y2="{TOP + plot_height}"/>'
        )
    curve = " ".join(f"{x(n.number):.1f},{y(n.ohs_score):.1f}" for n in notes)
    parts.append(f'<polyline class="curve" points="{curve}"/>')
    for note in notes:
        values = {
            "number": words.number(note.number),
            "player": players[note.side],
            "move": f"{note.played}{note.mark}",
            "value": value_text(note),
        }
        title = escape(
            i18n._("Move %(number)s, %(player)s: %(move)s (%(value)s, %(verdict)s)",
                   verdict=words.verdict(note.label), **values)
            if note.label
            else i18n._("Move %(number)s, %(player)s: %(move)s (%(value)s)", **values)
        )  # fmt: skip
        css = " ".join(c for c in ("point", note.label, "current" if note.number == shown else "")
                       if c)  # fmt: skip
        radius = 4.5 if note.label or note.number == shown else 2.5
        parts.append(
            f'<a href="?move={note.number}" aria-label="{title}"><title>{title}</title>'
            f'<rect class="hit" x="{x(note.number) - step / 2:.1f}" y="{TOP}" '
            f'width="{step:.1f}" height="{plot_height}"/>'
            f'<circle class="{css}" cx="{x(note.number):.1f}" cy="{y(note.ohs_score):.1f}" '
            f'r="{radius}"/></a>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


__all__ = ["MAX_SCALE", "evaluation_graph", "graph_scale", "value_text"]
