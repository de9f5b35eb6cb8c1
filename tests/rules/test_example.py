"""RULES.md, "A worked example", step by step."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import BLACK, WHITE, Column, IllegalMoveError

from .helpers import moves, position, to_reference

EXAMPLE = {"f4": "o4", "g4": "o1", "h4": "x2", "c5": "x1", "d6": "x1", "e5": "x1"}


def test_the_worked_example() -> None:
    pos = position(EXAMPLE, white=0, black=0, to_move=WHITE)
    assert pos.capture_size() == 0
    assert "f4-e4" in moves(pos)
    pos = pos.play("f4-e4")
    assert pos.column("e4") == Column(WHITE, 4, 0)

    # Black's only legal move takes 2 men; e5xe3 would take only 1.
    assert moves(pos) == ["h4xf4xd4"]
    assert pos.capture_size() == 2
    with pytest.raises(IllegalMoveError, match=r"(?i)\b2 men\b"):
        pos.parse_move("e5xe3")
    pos = pos.play("h4xf4xd4")
    assert pos.column("d4") == Column(BLACK, 2, 2)
    assert pos.column("e4") == Column(WHITE, 3, 0)
    assert pos.column("g4") is None and pos.column("h4") is None

    # White jumps d4 twice and crosses its own start cell: 5 men.
    assert moves(pos) == ["e4xc4xc6xe6xe4xc4"]
    assert pos.capture_size() == 5
    pos = pos.play("e4xc4xc6xe6xe4xc4")
    assert pos.columns() == {"c4": Column(WHITE, 3, 5), "d4": Column(WHITE, 2, 0)}

    # Black has nothing left: no legal move, so Black loses.
    assert pos.to_move == BLACK
    assert pos.legal_moves() == []
    assert to_reference(pos).loss_reason() == "eliminated"
