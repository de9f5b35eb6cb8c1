"""Helpers for the web and HTML board tests: a game to play by mail (tests/support/mailer.py),
and reading the cells out of an HTML board."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser

# A game of 31 moves (found with the rules engine) whose last move is a capture of two
# jumps: g4 over g5 to g6, then over f6 to e6.
CAPTURE_GAME = [
    "d8", "i5", "g6", "c7", "f4", "e9", "e4", "g7", "c3", "g7xg5", "h6", "f7", "d4", "h4",
    "d3", "d2", "g3", "g7", "f2", "e7", "c4", "b6", "d6", "f6", "f2-e2", "d2xf2", "d3-d2",
    "e7-e6", "g3-g4", "e6xc6", "g4xg6xe6",
]  # fmt: skip


@dataclass
class Cell:
    name: str
    column: str | None
    last: tuple[str, ...]
    title: str


class BoardCells(HTMLParser):
    """The data-cell elements of an HTML page, by cell name (and every tag seen)."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[str, Cell] = {}
        self.tags: set[str] = set()
        self.repeated: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        found = dict(attrs)
        name = found.get("data-cell")
        if name is None:
            return
        if name in self.cells:
            self.repeated.append(name)
        self.cells[name] = Cell(
            name=name,
            column=found.get("data-column"),
            last=tuple((found.get("data-last") or "").split()),
            title=found.get("title") or "",
        )


def board_cells(html: str) -> BoardCells:
    parser = BoardCells()
    parser.feed(html)
    parser.close()
    return parser


def columns_of(to_text: str) -> dict[str, str]:
    """The occupied cells of a ``Position.to_text()``: {cell: code}."""
    cells = to_text.split()[4]
    if cells == "-":
        return {}
    return dict(item.split("=") for item in cells.split(","))
