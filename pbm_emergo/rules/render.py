"""The ASCII board in the pbmserv diamond, as a pure function of a position."""

from __future__ import annotations

from functools import cache

from pbm_emergo.rules.board import ROWS
from pbm_emergo.rules.position import LETTERS, SIDES, Column, Position

_HEADER = "     " + "".join(f"{c:<4}" for c in "123456789")
_TURNED_HEADER = "     " + "".join(f"{c:<4}" for c in "987654321")
_TICKS = "     " + "|   " * 9


def _layout(turned: bool) -> tuple[tuple[str, tuple[str | None, ...]], ...]:
    """Each line of cells of the diagram: its start (the row's letter) and the names of
    its nine fields, None off the diamond."""
    order = range(8, -1, -1) if turned else range(9)
    return tuple(
        (
            f" {ROWS[r].upper()} - ",
            tuple(
                f"{ROWS[r]}{c + 1}" if abs(r - 4) + abs(c - 4) <= 4 else None for c in order
            ),
        )
        for r in order
    )


_LAYOUT = {turned: _layout(turned) for turned in (False, True)}

# What the codes mean, under every diagram: "x5" is one column of five men, not five men.
KEY = (
    "  Key: . empty cell, o one Ohs man, x one Eks man; x5: a column of",
    "  5 men with an Eks man on top (tall columns are spelled out above).",
)


def cell_code(column: Column | None) -> str:
    """What a cell shows: ``.`` vacant, ``o``/``x`` one man, else cap letter and height."""
    if column is None:
        return "."
    letter = LETTERS[SIDES.index(column.owner)]
    return letter if column.height == 1 else f"{letter}{column.height}"


@cache
def _padded_code(column: Column | None) -> str:
    # A cell as the diagram shows it, in its field of four (few codes: made once each).
    return f"{cell_code(column):<4}"


def composition(column: Column) -> str:
    """A column's men from top to bottom, e.g. ``ooo xxxxx``."""
    top = LETTERS[SIDES.index(column.owner)]
    bottom = LETTERS[1 - SIDES.index(column.owner)]
    return " ".join(part for part in (top * column.own, bottom * column.prisoners) if part)


def render_board(
    position: Position,
    white_name: str | None = None,
    black_name: str | None = None,
    *,
    key: bool = True,
    turned: bool = False,
    hands: bool = True,
) -> str:
    """The board as pbmserv draws it, then the tall columns, the men in hand and the key.

    Rows ``A``..``I``, four characters per column, a blank line after each row. Every
    column of more than one man is spelled out below the board, top to bottom. The players'
    names follow the sides' in the hands' lines when given (``Ohs (alice) inhand: 7``).
    ``key``: the two lines that say what the codes mean (the rules' pictures, which
    explain them in their text, leave them out); ``hands``: the men in hand (the views
    write them, and the key, in the reader's language). ``turned``: the board seen from the other
    side of the table (row ``I`` at the top, column 9 on the left), the cells keeping their
    names.
    """
    columns = position.columns()
    lines = [_TURNED_HEADER if turned else _HEADER, _TICKS]
    for start, names in _LAYOUT[turned]:
        lines.append(start + "".join(
            "    " if name is None else _padded_code(columns.get(name)) for name in names
        ))
        lines.append("")
    tall = [(cell, col) for cell, col in columns.items() if col.height > 1]
    if tall:
        lines.extend(f"  {cell}: {composition(col)}" for cell, col in tall)
        lines.append("")
    for side, colour, player in (("Ohs", "white", white_name), ("Eks", "black", black_name)):
        if not hands:
            break
        who = f"{side} ({player})" if player and player != side else side
        lines.append(f"  {who} inhand: {position.in_hand(colour)}")
    if key:
        lines.append("")
        lines.extend(KEY)
    return "\n".join(lines) + "\n"
