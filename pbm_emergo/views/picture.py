"""The board as a picture: the values the HTML board templates draw.

:func:`board_picture` turns a position (and the move that led to it) into plain values:
the 9 x 9 grid of the diamond with the 41 cells in place, each cell's column (the code of
``Position.to_text()``, its cap colour, own men and prisoners) and the part it played in
the last move (where it started, where it landed, what it captured). The templates
(``templates/board/*.html.j2``) only lay these out; the geometry comes from the rules
package (:data:`pbm_emergo.rules.CELLS`: a cell's name is its row letter and column digit).

Nothing here reads the database or knows about mail, so the mail replies and the web view
draw the same picture from the same function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, lru_cache

from markupsafe import Markup

from pbm_emergo.rules import BLACK, CELLS, WHITE, Column, InvalidMoveError, Move, Position
from pbm_emergo.views import i18n
from pbm_emergo.views.board_text import cell_text
from pbm_emergo.views.templating import render_html

SIZE = 9
ROW_LETTERS = "abcdefghi"
SIDE_NAMES = {WHITE: "Ohs", BLACK: "Eks"}

# The part a cell played in the last move (also the CSS class the web pages style).
START = "start"  # where the moving piece stood (a step or a capture)
LANDED = "landed"  # where it entered, stepped to, or landed during a capture
CAPTURED = "captured"  # a column it jumped (and took a man from)


def _mark_words(mark: str) -> str:
    """A cell's part in the last move, in words (the current locale)."""
    if mark == START:
        return i18n._("the last move started here")
    if mark == LANDED:
        return i18n._("the last move went here")
    return i18n._("captured in the last move")


@dataclass(frozen=True, slots=True)
class CellPicture:
    """One of the 41 cells as drawn (the same values give the same object: see
    :func:`_cell`, so that its description is worked out once)."""

    name: str  # "e4"
    row: int  # 0..8 from the top (row letter a..i)
    col: int  # 0..8 from the left (column digit 1..9)
    code: str | None  # the column's to_text() code ("o3x5"), None when vacant
    cap: str | None  # "white" / "black": the colour on top; None when vacant
    own: int  # men of the cap colour
    prisoners: int  # enemy men under them
    marks: tuple[str, ...]  # START / LANDED / CAPTURED: its part in the last move
    locale: str  # the language its description and HTML are in (i18n.current())
    # The cell in words, as the list board says it (rules/words.py), and its part in the
    # last move: ``c4: Ohs column of 3, 5 Eks prisoners; captured in the last move``.
    description: str = field(init=False, compare=False, repr=False)
    # Its <td> as templates/board/cell.html.j2 draws it (board/picture.html.j2 puts it in).
    html: Markup = field(init=False, compare=False, repr=False)
    # Worked out once: a picture's rows are looked up by their cells (see _row), 81 hashes
    # a picture. The name, code and marks say the rest of what compares.
    _hash: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.name, self.code, self.marks, self.locale)))
        object.__setattr__(self, "description", self._describe())
        with i18n.speaking(self.locale):
            object.__setattr__(self, "html", render_html("board/cell.html.j2", cell=self))

    def __hash__(self) -> int:
        return self._hash

    @property
    def height(self) -> int:
        return self.own + self.prisoners

    def _describe(self) -> str:
        with i18n.speaking(self.locale):
            column = None if self.cap is None else Column(self.cap, self.own, self.prisoners)
            text = cell_text(self.name, column)
            parts = [_mark_words(m) for m in self.marks]
        return text + ("; " + ", ".join(parts) if parts else "")


@dataclass(frozen=True, slots=True)
class BoardPicture:
    """A position as drawn: ``rows`` is the 9 x 9 grid (None off the diamond)."""

    rows: tuple[tuple[CellPicture | None, ...], ...]
    white_in_hand: int
    black_in_hand: int
    to_move: str  # "white" / "black"
    last_move: str | None  # its notation, None before the first move
    legal_moves: int = 0  # how many the player to move has
    # The drawn header row (board/heads.html.j2) and rows (board/row.html.j2), in the
    # language of the cells (see _heads, _row).
    heads: Markup = Markup()
    rows_html: tuple[Markup, ...] = ()

    @property
    def to_move_side(self) -> str:
        """``Ohs`` / ``Eks``: the side to move, as every reply names it."""
        return SIDE_NAMES[self.to_move]

    @property
    def last_mover_side(self) -> str:
        return SIDE_NAMES[BLACK if self.to_move == WHITE else WHITE]

    @property
    def cells(self) -> list[CellPicture]:
        """The 41 cells in row-major (sorted) order."""
        return [cell for row in self.rows for cell in row if cell is not None]


@cache
def _place(name: str) -> tuple[int, int]:
    return ROW_LETTERS.index(name[0]), int(name[1]) - 1


def move_marks(notation: str | None) -> dict[str, tuple[str, ...]]:
    """Each cell's part in a move given in notation (canonical, as stored): the start and
    every landing cell, and the columns a capture jumped (half-way between two landings)."""
    if not notation:
        return {}
    try:
        move = Move.from_text(notation)
    except InvalidMoveError:
        return {}  # not a move on the board (a resignation ...): nothing to highlight
    marks: dict[str, list[str]] = {}

    def mark(cell: str, what: str) -> None:
        if what not in marks.setdefault(cell, []):
            marks[cell].append(what)

    cells = move.cells
    if move.kind == "enter":
        mark(cells[0], LANDED)
        return {cell: tuple(m) for cell, m in marks.items()}
    mark(cells[0], START)
    for before, after in zip(cells, cells[1:], strict=False):
        mark(after, LANDED)
        if move.kind == "capture":
            (r1, c1), (r2, c2) = _place(before), _place(after)
            mark(f"{ROW_LETTERS[(r1 + r2) // 2]}{(c1 + c2) // 2 + 1}", CAPTURED)
    return {cell: tuple(m) for cell, m in marks.items()}


# A board shows few distinct cells (most are empty or hold one man), and each picture of a
# mail draws all 41: the cells are made once, their descriptions and HTML with them (once
# a language: the description is words).
@lru_cache(maxsize=8192)
def _cell(name: str, column: Column | None, marks: tuple[str, ...], locale: str) -> CellPicture:
    row, col = _place(name)
    if column is None:
        return CellPicture(name, row, col, None, None, 0, 0, marks, locale)
    return CellPicture(
        name, row, col, column.code, column.owner, column.own, column.prisoners, marks, locale
    )


# The header row is the same in every picture of a language, and most rows of a position
# are as they were a move before: each is drawn once (the marks of its values kept, so that
# a picture put together from them is the picture drawn whole).
@lru_cache(maxsize=16)
def _heads(locale: str) -> Markup:
    with i18n.speaking(locale):
        return render_html("board/heads.html.j2", columns=range(1, SIZE + 1))


@lru_cache(maxsize=2048)
def _row(index: int, cells: tuple[CellPicture | None, ...], locale: str) -> Markup:
    with i18n.speaking(locale):
        return render_html("board/row.html.j2", index=index, row=cells)


def board_picture(position: Position, last_move: str | None = None) -> BoardPicture:
    """The picture of ``position``; ``last_move`` (notation) is the move that led to it."""
    columns = position.columns()
    marks = move_marks(last_move)
    locale = i18n.current()
    grid: list[list[CellPicture | None]] = [[None] * SIZE for _ in range(SIZE)]
    for name in CELLS:
        cell = _cell(name, columns.get(name), marks.get(name, ()), locale)
        grid[cell.row][cell.col] = cell
    rows = tuple(tuple(row) for row in grid)
    return BoardPicture(
        rows=rows,
        white_in_hand=position.in_hand(WHITE),
        black_in_hand=position.in_hand(BLACK),
        to_move=position.to_move,
        last_move=last_move,
        legal_moves=len(position.legal_moves()),
        heads=_heads(locale),
        rows_html=tuple(_row(index, row, locale) for index, row in enumerate(rows)),
    )


__all__ = [
    "CAPTURED",
    "LANDED",
    "START",
    "BoardPicture",
    "CellPicture",
    "board_picture",
    "move_marks",
]
