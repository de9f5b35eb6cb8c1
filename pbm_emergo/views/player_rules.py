"""The rules as a player learns them (``docs/rules-for-players.md``), for the web's Rules
page and the mail's ``help rules``: one text, with pictures, in each language.

Each language has its own document beside the English one, ``rules-for-players.LANG.md``
(``rules-for-players.nl.md`` ...): a long text is translated whole, not sentence by
sentence through the catalogs. The reader's language (:func:`pbm_emergo.views.i18n.current`)
picks it; a language without one reads the English. Every document has the same pictures
in the same order, only their captions translated (tests check it). A translation's
headings carry the English heading's anchor (``## Het bord {#the-board}``), so that a link
to a section (``/rules#columns-and-prisoners``) finds it in every language.

The markdown holds its pictures as fenced blocks of the kind ``position``::

    ```position
    position: o 0 0 30 e4=o1,e5=x1,i5=x1
    move: e4xe6
    caption: Ohs jumps from e4 over e5 to e6.
    ```

``position`` is a ``Position.to_text()``; ``move`` (optional) a legal move in it, shown as
the position before and after it. The web draws them with the board's own picture
(``templates/board/picture.html.j2``), the mail as the ASCII diamond; tests check every
picture against the rules engine, so a picture cannot show an illegal move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from pbm_emergo.rules import Position, render_board
from pbm_emergo.views import i18n
from pbm_emergo.views.templating import data_dir

PLAYER_RULES_FILE = "rules-for-players.md"
_FIGURE = re.compile(r"^```position\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
# A heading's own anchor: ``## Het bord {#the-board}``.
_ANCHOR = re.compile(r"^(#{1,6} .*?) *\{#([a-z0-9-]+)\} *$", re.MULTILINE)


def anchored(markdown: str) -> tuple[str, dict[str, str]]:
    """The markdown without its headings' ``{#anchor}`` marks, and each marked heading's
    words with its anchor."""
    anchors: dict[str, str] = {}

    def unmark(match: re.Match[str]) -> str:
        anchors[match[1].lstrip("#").strip()] = match[2]
        return match[1]

    return _ANCHOR.sub(unmark, markdown), anchors


@dataclass(frozen=True)
class Figure:
    """A picture of the rules: a position, the move played in it (if any), a caption."""

    position: Position
    move: str | None
    caption: str

    @property
    def after(self) -> Position | None:
        """The position after the move (None when the picture shows no move)."""
        return self.position.play(self.move) if self.move else None


def read_figure(block: str) -> Figure:
    """A ``position`` block's fields (``position``, ``move``, ``caption``); ValueError for
    a field it does not know, a position that is not one, or a move that is not legal."""
    fields: dict[str, str] = {}
    for line in block.strip().splitlines():
        key, _, value = line.partition(":")
        if key.strip() not in ("position", "move", "caption"):
            raise ValueError(f"unknown field in a position picture: {line!r}")
        fields[key.strip()] = value.strip()
    figure = Figure(
        Position.from_text(fields["position"]), fields.get("move"), fields.get("caption", "")
    )
    figure.after  # noqa: B018 - a move that is not legal raises here, not on a page
    return figure


def blocks(markdown: str) -> list[str | Figure]:
    """The markdown as its text between pictures and the pictures, in order."""
    found: list[str | Figure] = []
    at = 0
    for match in _FIGURE.finditer(markdown):
        found.append(markdown[at : match.start()])
        found.append(read_figure(match[1]))
        at = match.end()
    found.append(markdown[at:])
    return [b for b in found if not isinstance(b, str) or b.strip()]


def player_rules_file(locale: str) -> str:
    """The name of the rules for players written in ``locale`` (English: the original)."""
    if locale == i18n.DEFAULT:
        return PLAYER_RULES_FILE
    stem, _, suffix = PLAYER_RULES_FILE.rpartition(".")
    return f"{stem}.{locale}.{suffix}"


def player_rules_markdown(locale: str | None = None) -> str:
    """The rules for players in ``locale`` (None: the reply's, :func:`i18n.current`), from
    the package data or the source tree's docs/; English where that language has none."""
    folder = data_dir("pbm_emergo.docs", "docs")
    translated = folder / player_rules_file(locale or i18n.current())
    if not translated.is_file():
        translated = folder / PLAYER_RULES_FILE
    return translated.read_text(encoding="utf-8")


def _plain(markdown: str, web_url: str | None) -> str:
    """Markdown as a mail's plain text: headings without their marks (and a line under),
    no emphasis or code marks, a link as its words (and where it leads, on the web)."""

    def link(match: re.Match[str]) -> str:
        if web_url and match[2].startswith("/"):
            return f"{match[1]} ({web_url.rstrip('/')}{match[2]})"
        return match[1]

    lines = []
    for line in anchored(markdown)[0].splitlines():
        heading = re.match(r"#{1,6} (.*)", line)
        if heading:
            title = heading[1].strip()
            lines += [title, "-" * len(title)]
            continue
        if re.fullmatch(r"\|(-+\|)+", line):
            continue  # a table's rule
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            line = "  " + f"{cells[0]:<16}" + " ".join(cells[1:])
        line = _LINK.sub(link, line)
        lines.append(line.replace("**", "").replace("`", ""))
    return "\n".join(lines).strip("\n") + "\n"


def _diagram(position: Position) -> str:
    return render_board(position, key=False)


def figure_text(figure: Figure) -> str:
    """A picture as mail text: the caption, the diamond before the move and after it."""
    parts = [figure.caption, ""]
    after = figure.after
    if after is None:
        parts.append(_diagram(figure.position))
    else:
        parts += [
            i18n._("Before:"),
            _diagram(figure.position),
            i18n._("After %(move)s:", move=figure.move),
            _diagram(after),
        ]
    return "\n".join(parts)


def player_rules_text(web_url: str | None = None) -> str:
    """The rules for players as the plain text of a mail, in the reply's language."""
    return _player_rules_text(web_url, i18n.current())


@cache
def _player_rules_text(web_url: str | None, locale: str) -> str:
    pieces = []
    for block in blocks(player_rules_markdown(locale)):
        if isinstance(block, Figure):
            pieces.append(figure_text(block))
        else:
            pieces.append(_plain(block, web_url))
    return "\n".join(piece.rstrip("\n") + "\n" for piece in pieces)


__all__ = [
    "PLAYER_RULES_FILE",
    "anchored",
    "Figure",
    "blocks",
    "figure_text",
    "player_rules_file",
    "player_rules_markdown",
    "player_rules_text",
    "read_figure",
]
