"""Moves in advance on values: the queue ``emergo queue`` items make, each refusal with its
reason, over many positions of random games. No database."""

from __future__ import annotations

import pytest

from pbm_emergo.game.board import QueueItem
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.queue import decide_queue, describe, queue_refusal
from pbm_emergo.rules import Position
from pbm_emergo.rules.reasons import Reason
from tests.game.boards import BOB, random_game, snapshot

GAMES = [random_game(seed, 30) for seed in range(40, 46)]
POSITIONS = [(g, ply) for g in range(len(GAMES)) for ply in range(1, len(GAMES[g]) - 1, 3)]


def refused(state_moves: list[str], items: list[str]) -> str:
    with pytest.raises(Refusal) as caught:
        decide_queue(snapshot(state_moves).state, BOB.id, items)
    return str(caught.value.reason_value or caught.value.reason)


def test_a_plain_move_is_queued_as_notation_for_the_next_move_number() -> None:
    state = snapshot(["e4"]).state  # bob to move; alice queues for after bob's
    assert decide_queue(state, 1, ["d5#3"]) == [QueueItem(1, "d5", 3)]
    assert decide_queue(state, 1, ["D5"]) == [QueueItem(1, "d5", 3)]


@pytest.mark.parametrize(("index", "ply"), POSITIONS)
def test_every_legal_answer_to_every_legal_move_may_be_queued(index: int, ply: int) -> None:
    moves = GAMES[index][:ply]
    state = snapshot(moves).state
    position = state.position
    items, expected = [], []
    for theirs in position.legal_moves()[:6]:
        after = position.play(theirs)
        answers = after.legal_moves()
        if not answers:
            continue
        items.append(f"{theirs}={answers[-1]}")
        expected.append(QueueItem(7, str(answers[-1]), ply + 2, if_move=str(theirs)))
    if items:
        assert decide_queue(state, 7, items) == expected


def test_conditional_items_that_do_not_fit_are_refused_each_with_its_reason() -> None:
    first = Position().legal_moves()[0]
    assert refused([], [f"{first}=e4", "d5"]).startswith("A conditional queue has only items")
    assert refused([], ["d5", "e4"]).startswith("Queue one move (for example d5)")
    assert refused([], [f"{first}=e4", f"{first}=e5"]) == (
        f"The queue names the opponent's move {first} twice."
    )
    assert refused([], ["j9=e4"]).startswith("The opponent's move j9 is not a move: ")
    assert refused([], ["e4xe6=e5"]).startswith("The opponent's move e4xe6 would not be legal: ")
    assert refused([], [f"{first}=zz"]).startswith(f"Your answer zz to {first} is not a move: ")


def test_a_move_number_that_is_not_the_queued_moves_is_refused() -> None:
    assert refused(["e4"], ["d5#5"]) == (
        "Board 101 is at move 2, so your queued move would be move 3, not move 5: nothing "
        "was queued."
    )


def test_a_plain_queued_move_that_is_no_move_at_all_is_refused() -> None:
    assert "zz9" in refused(["e4"], ["zz9"])


def test_the_summary_names_the_queue() -> None:
    assert describe([QueueItem(1, "d5", 3)]) == "d5"
    items = [QueueItem(1, "d5", 3, if_move="e6"), QueueItem(1, "c5", 3, if_move="c6")]
    assert describe(items) == "e6=d5 c6=c5"


def test_a_move_is_queued_only_while_the_opponent_is_to_move() -> None:
    state = snapshot(["e4"]).state  # bob to move
    assert queue_refusal(state, 1) is None  # alice waits: she may queue
    own_turn = queue_refusal(state, BOB.id)
    assert isinstance(own_turn, Reason) and str(own_turn) == (
        "It is your turn on board 101: play your move with 'emergo move 101 bob PASSWORD "
        "MOVE'. A move is queued only while the opponent is to move."
    )


def test_nothing_is_queued_on_a_finished_game() -> None:
    over = snapshot(["e4"]).state.replace(
        status="finished", to_move=None, winner="white", outcome_reason="resigned"
    )
    for player_id in (1, BOB.id):
        refused = queue_refusal(over, player_id)
        assert isinstance(refused, Reason) and refused.code == "game_is_over"
        assert str(refused) == "The game on board 101 is over: alice (Ohs) wins: bob resigned."
