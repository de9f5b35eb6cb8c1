"""RULES.md, "What a turn is" and "Capture": compulsory maximum capture and how routes run."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import BLACK, WHITE, Column, IllegalMoveError

from .helpers import moves, position, to_reference

# A 2x2 block: black singles on d4, c5, d6 and e5 around the vacant c4, c6, e6 and a white
# piece on e4; the white piece can run round the block either way and come back to e4.
RING = {"e4": "o1", "d4": "x1", "c5": "x1", "d6": "x1", "e5": "x1"}


def test_capture_comes_before_entering() -> None:
    pos = position({"e4": "o1", "e5": "x1"}, white=5, black=5)
    assert moves(pos) == ["e4xe6"]
    assert pos.capture_size() == 1
    with pytest.raises(IllegalMoveError, match=r"(?i)captur.*\b1 man\b"):
        pos.parse_move("a5")


def test_capture_comes_before_stepping() -> None:
    pos = position({"e4": "o1", "e5": "x1", "h5": "o2"})
    assert moves(pos) == ["e4xe6"]
    with pytest.raises(IllegalMoveError, match=r"(?i)captur"):
        pos.parse_move("h5-i5")


def test_capture_is_compulsory_in_the_entering_stage_for_black_too() -> None:
    pos = position({"e4": "o1", "e5": "x1"}, white=5, black=5, to_move=BLACK)
    assert moves(pos) == ["e5xe3"]


def test_maximum_capture_over_all_pieces() -> None:
    # c3 can take one man (d3); g5 can take two (f5, then d5). Only g5's route is legal.
    pos = position({"c3": "o1", "d3": "x1", "g5": "o1", "f5": "x1", "d5": "x1"})
    assert moves(pos) == ["g5xe5xc5"]
    assert pos.capture_size() == 2
    with pytest.raises(IllegalMoveError, match=r"(?i)captur.*\b2 men\b"):
        pos.parse_move("c3xe3")


def test_maximum_capture_over_the_routes_of_one_piece() -> None:
    # From e5: west over e4 takes one man; north over d5 then west over c4 takes two.
    pos = position({"e5": "o1", "e4": "x1", "d5": "x1", "c4": "x1"})
    assert moves(pos) == ["e5xc5xc3"]
    with pytest.raises(IllegalMoveError, match=r"(?i)\b2 men\b"):
        pos.parse_move("e5xe3")


def test_a_route_that_can_continue_must_continue() -> None:
    pos = position({"e5": "o1", "d5": "x1", "c4": "x1"})
    assert moves(pos) == ["e5xc5xc3"]
    with pytest.raises(IllegalMoveError, match=r"(?i)\b2 men\b"):
        pos.parse_move("e5xc5x")  # written as a complete route: it is not maximal


def test_equal_routes_are_all_legal() -> None:
    pos = position({"e5": "o1", "d5": "x1", "f5": "x1"})
    assert moves(pos) == ["e5xc5", "e5xg5"]


def test_routes_may_land_on_the_start_cell_again() -> None:
    pos = position(RING)
    assert moves(pos) == ["e4xc4xc6xe6xe4", "e4xe6xc6xc4xe4"]
    assert pos.capture_size() == 4
    after = pos.play("e4xc4xc6xe6xe4")
    assert after.columns() == {"e4": Column(WHITE, 1, 4)}


def test_routes_may_cross_the_start_cell_and_go_on() -> None:
    pos = position({**RING, "f4": "x1"})
    assert moves(pos) == ["e4xc4xc6xe6xe4xg4", "e4xe6xc6xc4xe4xg4"]
    assert pos.capture_size() == 5


def test_a_column_may_be_jumped_twice_while_still_enemy_capped() -> None:
    pos = position({**RING, "d4": "x2"})
    # Round the block and over d4 a second time. The other way round, the second jump over
    # d4 would be a 180-degree turn.
    assert moves(pos) == ["e4xc4xc6xe6xe4xc4"]
    after = pos.play("e4xc4xc6xe6xe4xc4")
    assert after.columns() == {"c4": Column(WHITE, 1, 5)}


def test_liberated_prisoners_change_sides_at_once_mid_route() -> None:
    # d4 is one black man on one white prisoner: the first jump over it frees the prisoner.
    pos = position({**RING, "d4": "x1o1"})
    # The freed man on d4 is white now, so it cannot be jumped again: both routes stop at 4.
    assert moves(pos) == ["e4xc4xc6xe6xe4", "e4xe6xc6xc4xe4"]
    after = pos.play("e4xc4xc6xe6xe4")
    assert after.column("d4") == Column(WHITE, 1, 0)
    assert after.column("e4") == Column(WHITE, 1, 4)


def test_a_liberated_column_blocks_a_landing() -> None:
    # e5 jumps d5 (x1o2: liberates two white men on d5), lands on c5. From c5 the way back
    # south would need d5 enemy-capped; instead the route goes on west over c4.
    pos = position({"e5": "o1", "d5": "x1o2", "c4": "x1"})
    assert moves(pos) == ["e5xc5xc3"]
    after = pos.play("e5xc5xc3")
    assert after.columns() == {"c3": Column(WHITE, 1, 2), "d5": Column(WHITE, 2, 0)}


def test_no_180_degree_turn() -> None:
    # Without the rule, e4xc4 could jump d4 again straight back to e4 (vacant after leaving).
    pos = position({"e4": "o1", "d4": "x2"})
    assert moves(pos) == ["e4xc4"]
    assert pos.capture_size() == 1
    with pytest.raises(IllegalMoveError):
        pos.parse_move("e4xc4xe4")


def test_the_top_man_is_taken_and_put_at_the_bottom() -> None:
    # e4: two white men over one black; e5: two black men over one white.
    pos = position({"e4": "o2x1", "e5": "x2o1"})
    assert moves(pos) == ["e4xe6"]
    after = pos.play("e4xe6")
    assert after.column("e6") == Column(WHITE, 2, 2)  # the black man joined the prisoners
    assert after.column("e5") == Column(BLACK, 1, 1)  # lost its top man only
    assert after.column("e4") is None
    assert after.to_move == BLACK


def test_a_piece_jumped_to_nothing_leaves_a_vacant_cell() -> None:
    pos = position({"e4": "o3", "e5": "x1"})
    after = pos.play("e4xe6")
    assert after.column("e5") is None
    assert after.column("e6") == Column(WHITE, 3, 1)


def test_only_enemy_capped_pieces_are_jumped() -> None:
    # e5 is white-capped (over black prisoners): not a capture for White.
    pos = position({"e4": "o1", "e5": "o1x3"})
    assert pos.capture_size() == 0
    assert all(m.kind == "step" for m in pos.legal_moves())


def test_the_landing_cell_must_be_vacant() -> None:
    pos = position({"e4": "o1", "e5": "x1", "e6": "x1"})
    assert pos.capture_size() == 0


def test_the_capturing_piece_moves_whole_with_its_prisoners() -> None:
    pos = position({"e4": "o2x3", "e5": "x1"})
    assert pos.play("e4xe6").column("e6") == Column(WHITE, 2, 4)


def test_tall_columns_many_routes_agree_with_the_reference() -> None:
    # Two 2x2 blocks sharing e5 (three men), black columns of height 1 to 3: the white piece
    # can take all 12 black men along several routes.
    pos = position(
        {
            "e4": "o1",
            "d4": "x2", "c5": "x2", "d6": "x2", "e5": "x3",
            "f4": "x1", "g5": "x1", "f6": "x1",
        }
    )
    ref = to_reference(pos)
    assert moves(pos) == ref.legal_moves()
    assert len(moves(pos)) > 1
    assert pos.capture_size() == ref.capture_size() == 12
    for move in pos.legal_moves():
        after = pos.play(move)
        assert [c.owner for c in after.columns().values()] == [WHITE]
        assert after.column(move.cells[-1]) == Column(WHITE, 1, 12)
