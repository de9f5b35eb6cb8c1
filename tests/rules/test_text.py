"""Position.to_text / Position.from_text: the one-line state kept in the database."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import BLACK, WHITE, Column, Position


def test_the_start_position_text_round_trips() -> None:
    text = Position().to_text()
    again = Position.from_text(text)
    assert again.to_text() == text
    assert again.key() == Position().key() and again.ply == 0
    assert len(again.legal_moves()) == 40  # e5 still closed: the ply is kept


def test_a_text_holds_side_hands_ply_and_columns() -> None:
    pos = Position().play("e4").play("a5").play("i5")
    again = Position.from_text(pos.to_text())
    assert again.to_move == BLACK and again.ply == 3
    assert again.in_hand(WHITE) == 10 and again.in_hand(BLACK) == 11
    assert again.columns() == {
        "a5": Column(BLACK, 1, 0), "e4": Column(WHITE, 1, 0), "i5": Column(WHITE, 1, 0)
    }
    assert again == pos


def test_columns_with_prisoners_round_trip() -> None:
    text = "x 0 0 31 c4=o3x5,d4=o2,e9=x4o1"
    pos = Position.from_text(text)
    assert pos.to_text() == text
    assert pos.column("c4") == Column(WHITE, 3, 5)
    assert pos.column("e9") == Column(BLACK, 4, 1)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "o 12 12 0",  # no cells field
        "w 12 12 0 -",  # side is o or x
        "o twelve 12 0 -",
        "o 12 12 -1 -",  # negative ply
        "o 13 12 0 -",  # 13 white men
        "o 12 12 0 e4=o1",  # 13 white men
        "o 0 0 0 e4=o7,e5=o6",  # 13 white men
        "o 0 0 0 e4=o1,e4=x1",  # a cell twice
        "o 0 0 0 z9=o1",  # not a cell
        "o 0 0 0 e4=o0",  # no man on top
        "o 0 0 0 e4=q1",
        "o 0 0 0 e4=o1o1",
        "o 0 0 0 e4=o01",  # a leading zero
        "o 0 0 0 e4=o\u0663",  # a digit that is not ASCII
        "o 0 0 0 e4=o3x0",  # zero prisoners are written by leaving them out
        "o -1 12 0 -",  # a negative hand
    ],
)
def test_malformed_text_is_rejected(text: str) -> None:
    with pytest.raises(ValueError):
        Position.from_text(text)


def test_a_negative_hand_is_named_as_such() -> None:
    with pytest.raises(ValueError, match="whole numbers, 0 or more"):
        Position.from_text("o -1 12 0 -")
