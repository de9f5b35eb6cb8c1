"""RULES.md, "Steps": without capture and without men in hand, one piece steps whole."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import BLACK, WHITE, Column, IllegalMoveError

from .helpers import moves, position


def test_steps_are_to_adjacent_vacant_cells_of_own_pieces() -> None:
    pos = position({"e5": "o1", "e4": "o2", "d5": "x1", "c5": "x1", "i5": "x1"})
    # e5 cannot jump d5 (c5 beyond is occupied); e4 has three vacant neighbours, e5 two.
    assert moves(pos) == ["e4-d4", "e4-e3", "e4-f4", "e5-e6", "e5-f5"]
    assert all(m.kind == "step" for m in pos.legal_moves())


def test_a_step_moves_the_whole_column() -> None:
    pos = position({"e4": "o3x4", "a5": "x1"})
    after = pos.play("e4-e3")
    assert after.column("e3") == Column(WHITE, 3, 4)
    assert after.column("e4") is None
    assert after.to_move == BLACK and after.ply == pos.ply + 1
    assert after.in_hand(WHITE) == 0


def test_a_step_to_an_occupied_cell_is_illegal() -> None:
    pos = position({"e4": "o1", "e5": "o1", "i5": "x1"})
    with pytest.raises(IllegalMoveError, match=r"(?i)occupied"):
        pos.parse_move("e4-e5")


def test_a_step_with_the_opponents_piece_is_illegal() -> None:
    pos = position({"e4": "o1", "a5": "x1"})
    with pytest.raises(IllegalMoveError, match=r"(?i)not yours|not your"):
        pos.parse_move("a5-b5")


def test_a_step_from_a_vacant_cell_is_illegal() -> None:
    pos = position({"e4": "o1", "a5": "x1"})
    with pytest.raises(IllegalMoveError, match=r"(?i)no piece|vacant|empty"):
        pos.parse_move("c5-c6")


def test_no_step_while_the_player_has_men_in_hand_even_if_the_opponent_has_none() -> None:
    pos = position({"e4": "o1", "a5": "x12"}, white=2, black=0)
    assert all(m.kind == "enter" for m in pos.legal_moves())
    with pytest.raises(IllegalMoveError, match=r"(?i)in hand|enter"):
        pos.parse_move("e4-e3")


def test_a_step_is_allowed_when_only_the_opponent_holds_men() -> None:
    pos = position({"e4": "o12", "a5": "x1"}, white=0, black=11)
    assert moves(pos) == ["e4-d4", "e4-e3", "e4-e5", "e4-f4"]


def test_entering_is_not_allowed_with_an_empty_hand() -> None:
    pos = position({"e4": "o12", "a5": "x1"}, white=0, black=11)
    with pytest.raises(IllegalMoveError, match=r"(?i)no men in hand|in hand"):
        pos.parse_move("c3")
