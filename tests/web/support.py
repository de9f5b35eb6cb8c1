"""Helpers for the web and HTML board tests: a game to play by mail (tests/support/mailer.py),
and reading the cells out of an HTML board."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

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


DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# The screenshots docs/web.md and the README show (PBM_EMERGO_UPDATE_SCREENSHOTS=1 renews them).
KEPT = {
    "board-mail.png", "board-page.png", "board-page-1280.png", "home-375.png", "home-1280.png",
    "home-dark-375.png", "rules-375.png", "rules-1280.png", "analysis-375.png",
    "analysis-1280.png", "rules-capture-375.png",
    "console-board.png", "console-support.png",
    "events-375.png", "events-1280.png", "event-375.png", "event-1280.png",
}  # fmt: skip


def shoot(page: Any, tmp_path: Path, name: str, *, full_page: bool = True) -> Path:
    """A screenshot in tmp_path (and in docs/screenshots/ when asked to update those)."""
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 5000  # a picture, not a blank
    if name in KEPT and os.environ.get("PBM_EMERGO_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS / name)
    return path
