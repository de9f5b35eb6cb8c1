"""Every reason an IllegalMoveError gives, checked by what the message says.

The messages go to players by mail, so each must name the rule that was broken and the
facts that matter (how many men a capture must take, which cell, which piece).
"""

from __future__ import annotations

import pytest

from pbm_emergo.rules import (
    AmbiguousMoveError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
    Position,
)

from .helpers import position

TWO_WAYS = {"e4": "o1", "d4": "x1", "c5": "x1", "d6": "x1", "e5": "x1", "f4": "x1"}


def reason(pos: Position, text: str) -> str:
    with pytest.raises(IllegalMoveError) as caught:
        pos.parse_move(text)
    assert not isinstance(caught.value, AmbiguousMoveError)
    return str(caught.value)


def test_error_classes() -> None:
    for cls in (InvalidMoveError, IllegalMoveError, AmbiguousMoveError, GameOverError):
        assert issubclass(cls, MoveError) and issubclass(cls, ValueError)
    assert issubclass(GameOverError, IllegalMoveError)


def test_capture_is_compulsory_and_says_how_many_men() -> None:
    pos = position({"g5": "o1", "f5": "x1", "d5": "x1", "a5": "o1"}, white=3, black=3)
    message = reason(pos, "i5")  # an entry
    assert "captur" in message.lower() and "2 men" in message
    pos = position({"g5": "o1", "f5": "x1", "d5": "x1", "a5": "o1"})
    message = reason(pos, "a5-b5")  # a step
    assert "captur" in message.lower() and "2 men" in message


def test_a_capture_that_is_not_maximum_says_how_many_men() -> None:
    pos = position(TWO_WAYS)
    for text in ("e4xc4xc6", "e4xc4xc6xe6", "e4xc4xc6xe6xe4"):
        message = reason(pos, text)
        assert "5 men" in message, (text, message)


def test_a_one_man_capture_says_one_man() -> None:
    pos = position({"e4": "o1", "e5": "x1"}, white=1, black=1)
    assert "1 man" in reason(pos, "a5")


def test_must_enter_while_holding_men() -> None:
    pos = position({"e4": "o1", "a5": "x1"}, white=4, black=4)
    message = reason(pos, "e4-e3")
    assert "enter" in message.lower() and "hand" in message.lower()


def test_entry_on_an_occupied_cell() -> None:
    message = reason(Position().play("e4"), "e4")
    assert "occupied" in message.lower() and "e4" in message


def test_entry_that_could_be_captured_at_once() -> None:
    message = reason(Position().play("e4"), "e5")
    # Names the cell and the attacker, and that it could be captured.
    assert "captur" in message.lower() and "e5" in message and "e4" in message


def test_e5_on_the_first_move() -> None:
    message = reason(Position(), "e5")
    assert "e5" in message and "first" in message.lower()


def test_not_your_piece() -> None:
    pos = position(TWO_WAYS)
    message = reason(pos, "e5xe3")  # Black's piece
    assert "e5" in message and "not yours" in message.lower()
    pos = position({"e4": "o1", "a5": "x1"})
    message = reason(pos, "a5-b5")
    assert "a5" in message and "not yours" in message.lower()


def test_no_piece_there() -> None:
    pos = position({"e4": "o1", "a5": "x1"})
    message = reason(pos, "c5-c6")
    assert "c5" in message and "no piece" in message.lower()


def test_no_such_route() -> None:
    pos = position(TWO_WAYS)
    message = reason(pos, "e4xc6")  # not along a line
    assert "e4" in message and "c6" in message and "jump" in message.lower()
    message = reason(pos, "e4xe2")  # nothing to jump on e3: the reply shows what is legal
    assert "e4xe2" in message and "e4xc4xc6xe6xe4xg4" in message
    pos = position({"e4": "o1", "a5": "x1"})
    message = reason(pos, "e4xe6")  # no capture exists at all
    assert "capture" in message.lower() and "e4xe6" in message


def test_no_180_degree_turn_is_no_such_route() -> None:
    pos = position({"e4": "o1", "d4": "x2"})
    message = reason(pos, "e4xc4xe4")
    assert "e4xc4xe4" in message or "1 man" in message


def test_entry_with_an_empty_hand() -> None:
    pos = position({"e4": "o12", "a5": "x1"}, white=0, black=11)
    message = reason(pos, "c3")
    assert "hand" in message.lower()


def test_no_legal_move_says_the_game_is_over() -> None:
    # Black to move with nothing left: Black has lost, no move can be played.
    pos = position({"c4": "o3x5", "d4": "o2"}, to_move="black")
    message = reason(pos, "a5")
    assert "no legal move" in message.lower() or "over" in message.lower()
    for text in ("a5", "c4-c3", "d4xd6"):
        with pytest.raises(GameOverError):
            pos.parse_move(text)
        with pytest.raises(GameOverError):
            pos.play(text)


def test_ambiguous_short_form_lists_candidates() -> None:
    with pytest.raises(AmbiguousMoveError) as caught:
        position(TWO_WAYS).parse_move("e4-g4")
    assert len(caught.value.candidates) == 2
    assert "e4xc4xc6xe6xe4xg4" in str(caught.value)


def test_invalid_syntax_says_what_a_move_looks_like() -> None:
    with pytest.raises(InvalidMoveError) as caught:
        Position().parse_move("hello")
    assert "hello" in str(caught.value)
    with pytest.raises(InvalidMoveError) as caught:
        Position().parse_move("a1")
    assert "a1" in str(caught.value)


def test_a_route_over_an_empty_cell_says_there_is_nothing_to_jump() -> None:
    pos = position(TWO_WAYS)
    message = reason(pos, "e4xe2")
    assert message.startswith("e4xe2 is not a capture route: e4xe2 would jump e3, which holds "
                              "no piece at that point")
    assert "You must take 5 men" in message


def test_a_route_over_an_own_piece_or_onto_an_occupied_cell() -> None:
    pos = position({"e4": "o1", "e5": "o1", "d4": "x1", "a5": "x1"})
    assert "would jump e5, which holds your own piece" in reason(pos, "e4xe6")
    pos = position({"e4": "o1", "d4": "x1", "c4": "x1", "a5": "x1", "e6": "x1"})
    # d4 can be jumped from e4 only onto c4, which is occupied: no capture exists at all.
    assert reason(pos, "e4xc4") == (
        "e4xc4 is not a capture route: e4xc4 would land on c4, which is occupied."
    )


def test_a_route_that_turns_straight_back_says_so() -> None:
    pos = position({"e4": "o1", "d4": "x2", "a5": "x1"})
    message = reason(pos, "e4xc4xe4")
    assert "c4xe4 turns straight back along the jump before it" in message


def test_a_short_form_with_no_route_between_its_cells() -> None:
    pos = position(TWO_WAYS)
    message = reason(pos, "e4xc6")
    assert message.startswith("No maximum capture route jumps from e4 to c6: you must take 5 men.")


def test_a_capture_from_a_cell_that_is_not_yours_when_none_is_possible() -> None:
    pos = position({"e4": "o1", "a5": "x1"})
    assert reason(pos, "a5xc5") == "The piece on a5 is not yours, and there is no capture here."
    assert reason(pos, "c4xc6") == "There is no piece on c4, and there is no capture here."
