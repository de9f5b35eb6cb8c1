"""RULES.md, "Notation": canonical output, every input form, the short capture form."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import AmbiguousMoveError, Game, IllegalMoveError, Move, Position

from .helpers import position

# White's e4 can run round the d4/c5/d6/e5 block either way, then take f4: two 5-man routes
# from e4 to g4.
TWO_WAYS = {"e4": "o1", "d4": "x1", "c5": "x1", "d6": "x1", "e5": "x1", "f4": "x1"}
WORKED = {"e4": "o3", "d4": "x2o2", "c5": "x1", "d6": "x1", "e5": "x1"}


def test_canonical_forms() -> None:
    entry = Position().parse_move("e4")
    assert (str(entry), entry.kind, entry.cells) == ("e4", "enter", ("e4",))
    step = position({"e4": "o1", "a5": "x1"}).parse_move("e4-e5")
    assert (str(step), step.kind, step.cells) == ("e4-e5", "step", ("e4", "e5"))
    route = position(TWO_WAYS).parse_move("e4xc4xc6xe6xe4xg4")
    assert str(route) == "e4xc4xc6xe6xe4xg4"
    assert route.kind == "capture"
    assert route.cells == ("e4", "c4", "c6", "e6", "e4", "g4")


@pytest.mark.parametrize("text", ["e4", "E4"])
def test_entry_input_forms(text: str) -> None:
    assert str(Position().parse_move(text)) == "e4"


@pytest.mark.parametrize("text", ["e4-e5", "E4-E5", "e4-E5"])
def test_step_input_forms(text: str) -> None:
    pos = position({"e4": "o1", "a5": "x1"})
    assert str(pos.parse_move(text)) == "e4-e5"


@pytest.mark.parametrize(
    "text",
    [
        "e4xc4xc6xe6xe4xg4",
        "E4XC4XC6XE6XE4XG4",
        "e4-c4-c6-e6-e4-g4",
        "e4:c4:c6:e6:e4:g4",
        "e4xc4xc6xe6xe4xg4x",
        "E4xc4-C6:e6Xe4-g4X",
    ],
)
def test_capture_input_forms(text: str) -> None:
    pos = position(TWO_WAYS)
    move = pos.parse_move(text)
    assert str(move) == "e4xc4xc6xe6xe4xg4"
    assert move in pos.legal_moves()


def test_syntax_level_parse_accepts_the_same_forms() -> None:
    canonical = Move.from_text("e4xc4xc6")
    for text in ("E4:C4:C6", "e4-c4-c6", "e4xc4xc6x"):
        assert Move.from_text(text) == canonical
    assert str(canonical) == "e4xc4xc6"


def test_the_short_form_is_accepted_when_it_matches_one_route() -> None:
    pos = position(WORKED)
    assert [str(m) for m in pos.legal_moves()] == ["e4xc4xc6xe6xe4xc4"]
    for text in ("e4xc4", "E4:C4", "e4-c4", "e4xc4x"):
        assert str(pos.parse_move(text)) == "e4xc4xc6xe6xe4xc4"


def test_the_short_form_is_ambiguous_when_it_matches_several_routes() -> None:
    pos = position(TWO_WAYS)
    with pytest.raises(AmbiguousMoveError) as caught:
        pos.parse_move("e4xg4")
    assert sorted(caught.value.candidates) == ["e4xc4xc6xe6xe4xg4", "e4xe6xc6xc4xe4xg4"]
    # each route, written in full, is a legal move of its own
    assert all(pos.parse_move(m) in pos.legal_moves() for m in caught.value.candidates)
    # The reply lists them.
    assert "e4xc4xc6xe6xe4xg4" in str(caught.value)
    assert "e4xe6xc6xc4xe4xg4" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_every_legal_move_parses_back_from_its_notation() -> None:
    for pos in (Position(), position(TWO_WAYS), position(WORKED), position({"e5": "o2"})):
        for move in pos.legal_moves():
            assert pos.parse_move(str(move)) == move
            assert Move.from_text(str(move)) == move
            assert str(move) == str(move).lower()


def test_legal_moves_are_sorted_by_notation() -> None:
    pos = position({"e5": "o1", "d5": "x1", "f5": "x1", "e4": "x1", "e6": "x1"})
    notations = [str(m) for m in pos.legal_moves()]
    assert notations == sorted(notations) and len(notations) == 4


def test_a_move_built_from_its_fields_plays_like_the_parsed_one() -> None:
    # A Move read back from storage as Move(kind, cells) must play like the engine's own.
    pos = position(TWO_WAYS)
    built = Move("capture", ("e4", "c4", "c6", "e6", "e4", "g4"))
    assert built in pos.legal_moves()
    assert pos.play(built).to_text() == pos.play("e4xc4xc6xe6xe4xg4").to_text()
    start = Position()
    assert start.play(Move("enter", ("e4",))).to_text() == start.play("e4").to_text()
    game = Game()
    game.play(Move("enter", ("e4",)))
    game.play(Move("enter", ("a5",)))
    assert [str(m) for m in game.moves] == ["e4", "a5"]
    with pytest.raises(IllegalMoveError):
        start.play(Move("enter", ("e5",)))


def test_legal_moves_returns_a_new_list_each_time() -> None:
    pos = Position()
    first = pos.legal_moves()
    first.clear()
    assert len(pos.legal_moves()) == 40
