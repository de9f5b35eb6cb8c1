"""The rules pages, rendered to HTML once, when the site starts: ``/rules`` is the rules as a
player learns them (``docs/rules-for-players.md``, or its translation in the reader's
language, with its pictures drawn as the board is: :mod:`pbm_emergo.views.player_rules`),
``/rules/engine`` the engine's specification (``docs/rules.md``, in English: it is written
for developers), linked from the first for the curious.

The file is found as the data package ``pbm_emergo.docs``: the build maps the top-level
``docs/`` folder into the package and ships ``rules.md`` with it (pyproject.toml), so an
installed wheel has it; a source checkout reads ``docs/rules.md`` itself. One source, so the
page can never drift from the rules the engine enforces.

Only the rules are shown: the page stops at the heading of the section about the rules
engine (``## The rules engine``), which is for programmers. markdown-it-py renders it, with
raw HTML off (the markdown is ours, but the site's pages never carry markup they did not
write) and an ``id`` on every heading, so that other pages can link to a section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt
from markupsafe import Markup

from pbm_emergo.rules import Position
from pbm_emergo.views import i18n
from pbm_emergo.views.picture import board_picture
from pbm_emergo.views.player_rules import Figure, anchored, blocks, player_rules_markdown
from pbm_emergo.views.templating import data_dir, render_html

RULES_FILE = "rules.md"
# Where the players' part ends: the rest describes pbm_emergo.rules for programmers.
ENGINE_HEADING = re.compile(r"^## The rules engine", re.MULTILINE)


@dataclass(frozen=True)
class RulesPage:
    """The rendered rules: the page's title (the markdown's first heading) and its body."""

    title: str
    html: Markup
    headings: tuple[str, ...]  # the second-level headings, in order


def rules_path() -> Path:
    """``rules.md`` from the package data (an installed wheel) or the source tree's docs/."""
    return data_dir("pbm_emergo.docs", "docs") / RULES_FILE


def slug(text: str) -> str:
    """A heading's ``id``: lower case, words joined by ``-`` (``board-and-names``)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def render_rules(markdown: str) -> RulesPage:
    """The players' part of the rules markdown as HTML, its headings with ids (their own
    ``{#anchor}``, else :func:`slug` of their words)."""
    end = ENGINE_HEADING.search(markdown)
    text, anchors = anchored(markdown[: end.start()] if end else markdown)
    md = MarkdownIt("js-default")  # CommonMark with tables, raw HTML off
    tokens = md.parse(text)
    title = "Emergo rules"
    headings: list[str] = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        words = tokens[index + 1].content
        token.attrSet("id", anchors.get(words) or slug(words))
        if token.tag == "h1":
            title = words
        elif token.tag == "h2":
            headings.append(words)
    return RulesPage(title, Markup(md.renderer.render(tokens, md.options, {})), tuple(headings))


@cache
def rules_page() -> RulesPage:
    """The engine's rules (``/rules/engine``), read and rendered once a process."""
    return render_rules(rules_path().read_text(encoding="utf-8"))


def render_player_rules(markdown: str) -> RulesPage:
    """The rules for players as HTML: the text rendered as :func:`render_rules` does, each
    picture as the board's picture (before and after its move) in a figure."""
    parts: list[str] = []
    title = "How to play Emergo"
    headings: list[str] = []
    for block in blocks(markdown):
        if isinstance(block, Figure):
            parts.append(
                render_html(
                    "rules/figure.html.j2",
                    figure=block,
                    pictures=[
                        (caption, board_picture(position, move))
                        for caption, position, move in _pictures(block)
                    ],
                )
            )
        else:
            page = render_rules(block)
            if page.title != "Emergo rules":
                title = page.title
            headings.extend(page.headings)
            parts.append(page.html)
    return RulesPage(title, Markup("\n").join(parts), tuple(headings))


def _pictures(figure: Figure) -> list[tuple[str, Position, str | None]]:
    after = figure.after
    if after is None or figure.move is None:
        return [("", figure.position, None)]
    return [
        (i18n._("Before"), figure.position, None),
        (i18n._("After %(move)s", move=figure.move), after, figure.move),
    ]


def player_rules_page() -> RulesPage:
    """The rules for players (``/rules``) in the reader's language, read and rendered once a
    process and language."""
    return _player_rules_page(i18n.current())


@cache
def _player_rules_page(locale: str) -> RulesPage:
    with i18n.speaking(locale):
        return render_player_rules(player_rules_markdown(locale))


__all__ = [
    "RulesPage",
    "player_rules_page",
    "render_player_rules",
    "render_rules",
    "rules_page",
    "rules_path",
    "slug",
]
