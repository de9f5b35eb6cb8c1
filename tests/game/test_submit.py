"""``emergo submit`` and ``emergo confirm`` decided on values."""

from __future__ import annotations

import pytest

from pbm_emergo.game.board_changes import MoveSubmitted, SubmittedMoveDropped
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.play import Play
from pbm_emergo.game.submit import Submitted, decide_confirm, decide_submit
from pbm_emergo.rules import Game
from tests.game.boards import ALICE, BOB, NOW, random_game, seat_of_ply, snapshot


def request(player_id: int, text: str, comment: str = "") -> Play:
    userid = "alice" if player_id == ALICE.id else "bob"
    return Play.parse(101, player_id, userid, text, comment)


def submitted(notation: str = "e4", last_move_id: int = 7) -> Submitted:
    return Submitted(101, ALICE.id, notation, "hi", last_move_id, NOW)


@pytest.mark.parametrize("seed", range(4))
def test_a_submission_is_the_move_and_the_board_it_would_make(seed: int) -> None:
    moves = random_game(seed, 20)
    ply = len(moves) - 1
    mover = seat_of_ply(ply)
    decided = decide_submit(
        snapshot(moves[:ply]), request(mover.id, moves[ply].upper(), "a note"), 7, None, NOW
    )
    assert decided.notation == moves[ply]
    assert decided.position == Game.from_moves(moves).position
    assert decided.change == MoveSubmitted(101, mover.id, moves[ply], "a note", 7, NOW)
    assert decided.replaces is None


def test_a_submission_replaces_the_earlier_one() -> None:
    decided = decide_submit(snapshot(), request(ALICE.id, "d4"), 0, submitted("e4", 0), NOW)
    assert decided.replaces == "e4"
    assert decided.change.comment is None


@pytest.mark.parametrize(
    ("player", "text", "says"),
    [
        (ALICE, "e5", "e5"),
        (BOB, "e4", "turn"),
        (ALICE, "resign", "Only a move can be submitted"),
        (ALICE, "propose", "Only a move can be submitted"),
        (ALICE, "e4#2", "not move 2"),
    ],
)
def test_what_cannot_be_submitted(player: object, text: str, says: str) -> None:
    with pytest.raises(Refusal) as refused:
        decide_submit(snapshot(), request(player.id, text), 0, None, NOW)  # type: ignore[attr-defined]
    assert says in refused.value.reason


def test_a_confirmation_plays_the_submission_while_the_moves_are_unchanged() -> None:
    found = submitted("e4", 7)
    assert decide_confirm(101, "alice", found, 7) == found


def test_nothing_to_confirm() -> None:
    with pytest.raises(Refusal, match="alice has no submitted move on board 101"):
        decide_confirm(101, "alice", None, 7)


@pytest.mark.parametrize("last_move_id", [0, 6, 8])
def test_a_move_played_or_taken_back_since_drops_it(last_move_id: int) -> None:
    with pytest.raises(Refusal) as refused:
        decide_confirm(101, "alice", submitted("e4", 7), last_move_id)
    assert "was dropped" in refused.value.reason
    assert refused.value.changes == (SubmittedMoveDropped(101, ALICE.id),)
