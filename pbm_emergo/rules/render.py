"""The ASCII board in the pbmserv diamond, as a pure function of a position."""

from __future__ import annotations

from pbm_emergo.rules.board import ROWS
from pbm_emergo.rules.position import LETTERS, SIDES, Column, Position

_HEADER = "     " + "".join(f"{c:<4}" for c in "123456789")
_TURNED_HEADER = "     " + "".join(f"{c:<4}" for c in "987654321")
_TICKS = "     " + "|   " * 9


def cell_code(column: Column | None) -> str:
    """What a cell shows: ``.`` vacant, ``o``/``x`` one man, else cap letter and height."""
    if column is None:
        return "."
    letter = LETTERS[SIDES.index(column.owner)]
    return letter if column.height == 1 else f"{letter}{column.height}"


def composition(column: Column) -> str:
    """A column's men from top to bottom, e.g. ``ooo xxxxx``."""
    top = LETTERS[SIDES.index(column.owner)]
    bottom = LETTERS[1 - SIDES.index(column.owner)]
    return " ".join(part for part in (top * column.own, bottom * column.prisoners) if part)


def render_board(
    position: Position,
    white_name: str = "Ohs",
    black_name: str = "Eks",
    *,
    turned: bool = False,
) -> str:
    """The board as pbmserv draws it, then the tall columns and the men in hand.

    Rows ``A``..``I``, four characters per column, a blank line after each row. Every
    column of more than one man is spelled out below the board, top to bottom.
    ``turned``: the board seen from the other side of the table (row ``I`` at the top,
    column 9 on the left), the cells keeping their names.
    """
    columns = position.columns()
    order = range(8, -1, -1) if turned else range(9)
    lines = [_TURNED_HEADER if turned else _HEADER, _TICKS]
    for r in order:
        letter = ROWS[r]
        fields = []
        for c in order:
            name = f"{letter}{c + 1}"
            if abs(r - 4) + abs(c - 4) <= 4:
                fields.append(f"{cell_code(columns.get(name)):<4}")
            else:
                fields.append("    ")
        lines.append(f" {letter.upper()} - " + "".join(fields))
        lines.append("")
    tall = [(cell, col) for cell, col in columns.items() if col.height > 1]
    if tall:
        lines.extend(f"  {cell}: {composition(col)}" for cell, col in tall)
        lines.append("")
    lines.append(f"  Ohs ({white_name}) inhand: {position.in_hand('white')}")
    lines.append(f"  Eks ({black_name}) inhand: {position.in_hand('black')}")
    return "\n".join(lines) + "\n"
