"""The ASCII board in the pbmserv diamond, as a pure function of a position."""

from __future__ import annotations

from pbm_emergo.rules.board import ROWS
from pbm_emergo.rules.position import LETTERS, SIDES, Column, Position

_HEADER = "     " + "".join(f"{c:<4}" for c in "123456789")
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


def render_board(position: Position, white_name: str = "Ohs", black_name: str = "Eks") -> str:
    """The board as pbmserv draws it, then the tall columns and the men in hand.

    Rows ``A``..``I``, four characters per column, a blank line after each row. Every
    column of more than one man is spelled out below the board, top to bottom.
    """
    columns = position.columns()
    lines = [_HEADER, _TICKS]
    for r, letter in enumerate(ROWS):
        fields = []
        for c in range(9):
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
