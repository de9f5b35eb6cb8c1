"""RULES.md, "Men, pieces, hands" and "Entering"."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import BLACK, CELLS, WHITE, Column, IllegalMoveError, Position

from . import reference
from .helpers import moves, position, to_reference

RIM = [c for c in CELLS if len(reference.neighbours(c)) < 4]
# The 12 cells next to the rim, on the inside.
RING_3 = {
    c: "o1" for c in CELLS if abs(reference.coords(c)[0] - 4) + abs(reference.coords(c)[1] - 4) == 3
}


def test_the_start_position() -> None:
    start = Position()
    assert start.to_move == WHITE
    assert start.in_hand(WHITE) == 12 and start.in_hand(BLACK) == 12
    assert start.columns() == {}
    assert start.ply == 0
    assert start.capture_size() == 0


def test_white_has_40_legal_first_moves_every_cell_but_e5() -> None:
    legal = Position().legal_moves()
    assert len(legal) == 40
    assert all(m.kind == "enter" for m in legal)
    assert [str(m) for m in legal] == sorted(c for c in CELLS if c != "e5")


def test_e5_is_closed_on_whites_first_move() -> None:
    with pytest.raises(IllegalMoveError, match=r"(?i)e5.*first|first.*e5"):
        Position().parse_move("e5")


def test_e5_is_open_to_black_on_the_first_reply() -> None:
    assert "e5" in moves(Position().play("a5"))


def test_e5_is_open_to_white_after_the_first_move() -> None:
    pos = Position().play("a5").play("i5")
    assert "e5" in moves(pos)
    assert pos.play("e5").column("e5") == Column(WHITE, 1, 0)


def test_an_entry_is_one_man_while_the_opponent_has_men_in_hand() -> None:
    pos = Position().play("e4")
    assert pos.column("e4") == Column(WHITE, 1, 0)
    assert pos.in_hand(WHITE) == 11 and pos.in_hand(BLACK) == 12
    assert pos.to_move == BLACK and pos.ply == 1
    pos = pos.play("a5")
    assert pos.column("a5") == Column(BLACK, 1, 0)
    assert pos.in_hand(WHITE) == 11 and pos.in_hand(BLACK) == 11
    assert pos.to_move == WHITE and pos.ply == 2


def test_one_man_even_when_the_opponent_has_a_single_man_left_in_hand() -> None:
    pos = position({"i5": "x11"}, white=5, black=1)
    after = pos.play("a5")
    assert after.column("a5") == Column(WHITE, 1, 0)
    assert after.in_hand(WHITE) == 4


def test_the_shadowpiece_is_all_remaining_men_when_the_opponent_has_none() -> None:
    pos = position({"c5": "x3", "g5": "o7"}, white=5, black=0)
    after = pos.play("a5")
    assert after.column("a5") == Column(WHITE, 5, 0)
    assert after.in_hand(WHITE) == 0


def test_black_enters_a_shadowpiece_too() -> None:
    pos = position({"c5": "x9", "g5": "o12"}, white=0, black=3, to_move=BLACK)
    after = pos.play("i5")
    assert after.column("i5") == Column(BLACK, 3, 0)
    assert after.in_hand(BLACK) == 0


def test_a_shadowpiece_may_be_a_single_man() -> None:
    pos = position({"c5": "x3", "g5": "o11"}, white=1, black=0)
    after = pos.play("a5")
    assert after.column("a5") == Column(WHITE, 1, 0)
    assert after.in_hand(WHITE) == 0


def test_the_shadowpiece_ends_the_entering_stage() -> None:
    pos = position({"c5": "x3", "g5": "o7"}, white=5, black=0).play("a5")
    # Both hands are empty now: both sides step from here on.
    assert moves(pos) and all(m.kind == "step" for m in pos.legal_moves())
    pos = pos.play("c5-c4")
    assert moves(pos) and all(m.kind == "step" for m in pos.legal_moves())


def test_no_step_while_holding_men() -> None:
    pos = position({"e4": "o1", "a5": "x1"}, white=3, black=3)
    assert moves(pos) and all(m.kind == "enter" for m in pos.legal_moves())
    with pytest.raises(IllegalMoveError, match=r"(?i)enter"):
        pos.parse_move("e4-e3")


def test_an_entry_needs_a_vacant_cell() -> None:
    pos = Position().play("e4")
    assert "e4" not in moves(pos)
    with pytest.raises(IllegalMoveError, match=r"(?i)occupied"):
        pos.parse_move("e4")


def test_no_feeding_an_entry_may_not_be_capturable_at_once() -> None:
    pos = Position().play("e4")
    # d4, f4, e3 and e5 are next to e4 with a vacant cell beyond: White could take them.
    assert set(moves(pos)) == set(CELLS) - {"e4", "d4", "f4", "e3", "e5"}
    for cell in ("d4", "f4", "e3", "e5"):
        with pytest.raises(IllegalMoveError, match=r"(?i)captur.*e4"):
            pos.parse_move(cell)


def test_an_entry_next_to_an_enemy_is_safe_when_the_cell_beyond_is_occupied() -> None:
    pos = position({"e4": "o1", "c4": "x1"}, white=11, black=11, to_move=BLACK)
    legal = moves(pos)
    assert "d4" in legal  # e4 cannot jump d4: c4 beyond it is occupied
    assert "e5" not in legal  # e4 could jump e5 to e6


def test_no_feeding_does_not_apply_when_the_opponent_already_has_a_capture() -> None:
    # White's e1 attacks Black's e2 (e3 is vacant); Black cannot capture anything.
    attacked = position({"e1": "o1", "c5": "o1", "e2": "x1"}, white=10, black=11, to_move=BLACK)
    assert attacked.capture_size() == 0
    vacant = set(CELLS) - {"e1", "c5", "e2"}
    assert set(moves(attacked)) == vacant  # c4, c6, b5 and d5 included
    # The same without the attack on e2: the cells next to c5 are feeding again.
    quiet = position({"e1": "o1", "c5": "o1", "i5": "x1"}, white=10, black=11, to_move=BLACK)
    feeding = {"c4", "c6", "b5", "d5", "e2"}
    assert set(moves(quiet)) == set(CELLS) - {"e1", "c5", "i5"} - feeding


def test_no_feeding_holds_for_the_shadowpiece() -> None:
    pos = position({"c5": "x3", "g5": "o7"}, white=5, black=0)
    legal = moves(pos)
    for cell in ("b5", "c4", "c6", "d5"):
        assert cell not in legal
    with pytest.raises(IllegalMoveError, match=r"(?i)captur"):
        pos.parse_move("b5")


def test_the_shadowpiece_may_feed_when_already_attacked() -> None:
    # Black's e1 attacks White's e2 (e3 vacant); White has no capture.
    pos = position({"c5": "x3", "e1": "x1", "g5": "o6", "e2": "o1"}, white=5, black=0)
    assert pos.capture_size() == 0
    assert "b5" in moves(pos)
    assert pos.play("b5").column("b5") == Column(WHITE, 5, 0)


def test_rim_cells_are_always_legal_entries() -> None:
    # White men on every cell next to the rim; any entry inside the ring next to them feeds.
    pos = position(RING_3, white=0, black=12, to_move=BLACK, ply=12)
    legal = moves(pos)
    assert len(RIM) == 16
    assert set(RIM) <= set(legal)
    assert "e3" not in legal and "c5" not in legal


def test_no_legal_entry_means_no_legal_move() -> None:
    # White holds a man but every vacant cell could be captured at once by Black (who is
    # not attacking): White may not step either, so White has no legal move.
    cells = {
        "a5": "x1", "b4": "o1", "b6": "o1", "c3": "x1", "c6": "o1", "c7": "o1", "d2": "o1",
        "d5": "x1", "d8": "x1", "e1": "x1", "e4": "x1", "e6": "x1", "e9": "x1", "f2": "o1",
        "f6": "x1", "f8": "o1", "g3": "x1", "g6": "x1", "g7": "x1", "h4": "o1", "h5": "o1",
        "h6": "o1", "i5": "o1",
    }
    pos = position(cells, white=1, black=0)
    assert pos.legal_moves() == []
    assert to_reference(pos).legal_moves() == []
