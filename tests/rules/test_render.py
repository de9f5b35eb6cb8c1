"""The ASCII board: the pbmserv diamond (reference/pbmserv-emergo-help.txt, COMMANDS.md)."""

from __future__ import annotations

from pbm_emergo.rules import CELLS, Position, render_board

from .helpers import position


def test_the_empty_board_is_the_pbmserv_diagram() -> None:
    expected = [
        "     1   2   3   4   5   6   7   8   9   ",
        "     |   |   |   |   |   |   |   |   |   ",
        " A -                 .                   ",
        "",
        " B -             .   .   .               ",
        "",
        " C -         .   .   .   .   .           ",
        "",
        " D -     .   .   .   .   .   .   .       ",
        "",
        " E - .   .   .   .   .   .   .   .   .   ",
        "",
        " F -     .   .   .   .   .   .   .       ",
        "",
        " G -         .   .   .   .   .           ",
        "",
        " H -             .   .   .               ",
        "",
        " I -                 .                   ",
        "",
        "  Ohs inhand: 12",
        "  Eks inhand: 12",
        "",
        "  Key: . empty cell, o one Ohs man, x one Eks man; x5: a column of",
        "  5 men with an Eks man on top (tall columns are spelled out above).",
    ]
    # Lines 17-38 of reference/pbmserv-emergo-help.txt, without the players' names (the
    # help's "Ohs (Ohs)" said the side twice), then the key of the codes.
    assert render_board(Position()) == "\n".join(expected) + "\n"


def field(board: str, cell: str) -> str:
    """The 4-character field of a cell in a rendered board."""
    line = board.split("\n")[2 + 2 * "abcdefghi".index(cell[0])]
    start = 5 + 4 * (int(cell[1]) - 1)
    return line[start : start + 4]


def test_cells_men_and_columns() -> None:
    pos = position({"c4": "o3x5", "d4": "o2", "i5": "x1", "e1": "x2o1"}, white=2, black=4)
    board = render_board(pos, "alice", "bob")
    assert field(board, "c4") == "o8  "
    assert field(board, "d4") == "o2  "
    assert field(board, "i5") == "x   "
    assert field(board, "e1") == "x3  "
    for cell in CELLS:
        if pos.column(cell) is None:
            assert field(board, cell) == ".   "
    lines = board.split("\n")
    # Each column of more than one man, spelled out top to bottom, in cell order.
    assert "  c4: ooo xxxxx" in lines
    assert "  d4: oo" in lines
    assert "  e1: xx o" in lines
    assert not any(line.startswith("  i5:") for line in lines)
    assert lines.index("  c4: ooo xxxxx") < lines.index("  d4: oo") < lines.index("  e1: xx o")
    assert "  Ohs (alice) inhand: 2\n  Eks (bob) inhand: 4\n" in board
    assert max(len(line) for line in lines) <= 72


def test_the_tallest_column_fits_its_field() -> None:
    board = render_board(position({"e5": "o12x12"}))
    assert field(board, "e5") == "o24 "
    assert "  e5: " + "o" * 12 + " " + "x" * 12 in board.split("\n")


def test_rendering_leaves_the_position_unchanged() -> None:
    pos = Position().play("e4")
    text = pos.to_text()
    assert render_board(pos) == render_board(pos)
    assert pos.to_text() == text
