"""The rules page (``/rules``): ``docs/rules.md`` rendered to HTML once, when the site starts.

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

from pbm_emergo.views.templating import data_dir

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
    """The players' part of the rules markdown as HTML, its headings with ids."""
    end = ENGINE_HEADING.search(markdown)
    text = markdown[: end.start()] if end else markdown
    md = MarkdownIt("js-default")  # CommonMark with tables, raw HTML off
    tokens = md.parse(text)
    title = "Emergo rules"
    headings: list[str] = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        words = tokens[index + 1].content
        token.attrSet("id", slug(words))
        if token.tag == "h1":
            title = words
        elif token.tag == "h2":
            headings.append(words)
    return RulesPage(title, Markup(md.renderer.render(tokens, md.options, {})), tuple(headings))


@cache
def rules_page() -> RulesPage:
    """The rules, read and rendered once a process."""
    return render_rules(rules_path().read_text(encoding="utf-8"))


__all__ = ["RulesPage", "render_rules", "rules_page", "rules_path", "slug"]
