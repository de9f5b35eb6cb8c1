"""RULES.md, "Board and names": 41 cells, their names, neighbours and jumps, any-case input."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import CELLS, InvalidMoveError, Move, Position

from . import reference
from .helpers import moves, position


def test_there_are_41_cells_in_row_major_order() -> None:
    assert len(CELLS) == 41
    assert len(set(CELLS)) == 41
    expected = [
        f"{'abcdefghi'[r]}{c + 1}"
        for r in range(9)
        for c in range(9)
        if abs(r - 4) + abs(c - 4) <= 4
    ]
    assert list(CELLS) == expected
    assert CELLS == reference.CELLS


def test_named_landmarks() -> None:
    assert CELLS[0] == "a5"  # the top
    assert CELLS[-1] == "i5"  # the bottom
    assert CELLS[20] == "e5"  # the centre
    assert "e1" in CELLS and "e9" in CELLS  # the left and right ends
    assert [c for c in CELLS if c[0] == "e"] == [f"e{i}" for i in range(1, 10)]
    assert [c for c in CELLS if c[0] == "b"] == ["b4", "b5", "b6"]
    for corner in ("a1", "a4", "a6", "a9", "i1", "i9", "b3", "b7", "d1", "f9"):
        assert corner not in CELLS


@pytest.mark.parametrize("cell", CELLS)
def test_a_piece_steps_to_exactly_its_orthogonal_neighbours(cell: str) -> None:
    pos = position({cell: "o1"})  # alone on the board, no men in hand: only steps
    targets = sorted(m.split("-")[1] for m in moves(pos))
    assert targets == sorted(reference.neighbours(cell))


def test_neighbour_counts() -> None:
    def degree(cell: str) -> int:
        return len(moves(position({cell: "o1"})))

    assert degree("e5") == 4
    assert degree("a5") == 1 and degree("e1") == 1 and degree("e9") == 1 and degree("i5") == 1
    assert degree("c3") == 2  # a rim cell on a side of the diamond
    # 32 row links and 32 column links, each counted from both ends.
    assert sum(degree(cell) for cell in CELLS) == 128


def test_a_jump_goes_two_cells_along_a_line() -> None:
    # e5 is surrounded by black men, each with a vacant cell beyond it.
    pos = position({"e5": "o1", "d5": "x1", "f5": "x1", "e4": "x1", "e6": "x1"})
    # After the first jump the piece is on a rim-side cell with nothing more to take.
    assert sorted(moves(pos)) == ["e5xc5", "e5xe3", "e5xe7", "e5xg5"]


def test_a_jump_needs_the_landing_cell_to_exist() -> None:
    # b5 is next to a5, but beyond a5 there is no cell: a5 can never be jumped from b5.
    pos = position({"b5": "o1", "a5": "x1", "b4": "x1", "b6": "x1"})
    assert all(m.kind != "capture" for m in pos.legal_moves())
    assert pos.capture_size() == 0


def test_input_is_case_insensitive_and_output_lowercase() -> None:
    start = Position()
    assert start.parse_move("E4") == start.parse_move("e4")
    assert str(start.parse_move("E4")) == "e4"
    assert str(Move.from_text("E4-E5")) == "e4-e5"
    assert Move.from_text("E4-E5").cells == ("e4", "e5")
    pos = position({"e4": "o1"})
    assert pos.column("E4") == pos.column("e4")
    assert list(pos.columns()) == ["e4"]
    assert all(m == m.lower() for m in moves(Position()))


@pytest.mark.parametrize("text", ["z9", "a1", "e0", "e10", "j5", "e4e5e", "", "4e"])
def test_text_that_is_not_a_move_is_invalid(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        Position().parse_move(text)
    with pytest.raises(ValueError):  # every move error is a ValueError
        Move.from_text(text)
