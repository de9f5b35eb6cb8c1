"""Resigning, declining, draw offers and undo requests decided on values."""

from __future__ import annotations

import pytest

from pbm_emergo.game.board import BLACK, WHITE, OpenVote
from pbm_emergo.game.changes import (
    BoardDeclined,
    GameFinished,
    MovesTakenBack,
    VoteOpened,
    VoteRemoved,
    VotesDropped,
)
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.events import BoardChanged, GameDeclined
from pbm_emergo.game.numbers import RATED_MOVES_EACH
from pbm_emergo.game.play import Play, decide_move
from pbm_emergo.rules import Game, Termination
from tests.game.boards import ALICE, BOB, NOW, outcome_rating, random_game, snapshot

MOVES = random_game(7, 30)
USERIDS = {ALICE.id: "alice", BOB.id: "bob"}


def request(player_id: int, text: str, comment: str = "") -> Play:
    return Play.parse(101, player_id, USERIDS[player_id], text, comment)


@pytest.mark.parametrize("ply", range(2, 20))
@pytest.mark.parametrize("who", [ALICE, BOB])
@pytest.mark.parametrize("rated", [True, False])
def test_resigning_ends_the_game_for_the_opponent(ply: int, who: object, rated: bool) -> None:
    assert who in (ALICE, BOB)
    seat = ALICE if who == ALICE else BOB
    decision = decide_move(
        snapshot(MOVES[:ply], rated=rated), request(seat.id, "RESIGN", "gg"), NOW
    )
    winner = BLACK if seat == ALICE else WHITE
    # Rated only once each player made RATED_MOVES_EACH moves (alice moves first).
    counts = rated and ply >= 2 * RATED_MOVES_EACH
    rating = outcome_rating(winner) if counts else None
    assert decision.changes == (
        GameFinished(
            101, winner, Termination.RESIGNED, NOW, expected_rating=rating, rated=counts,
            expected_ply=ply,
        ),
    )
    assert decision.state_after.rated == counts
    after = decision.state_after
    assert not after.active and after.winner == winner and after.rating == rating
    if rating is not None:
        assert after.white.rating == ALICE.rating + rating.white_change
        assert after.black.rating == BOB.rating + rating.black_change
    assert decision.events == (BoardChanged(after, f"{seat.userid} resigned.", "gg", seat.userid),)
    assert str(decision.summary) == "resigned on board 101"


@pytest.mark.parametrize(("ply", "who"), [(0, ALICE), (0, BOB), (1, BOB)])
def test_resigning_before_ones_first_move_declines(ply: int, who: object) -> None:
    seat = ALICE if who == ALICE else BOB
    before = snapshot(MOVES[:ply])
    decision = decide_move(before, request(seat.id, "resign", "sorry"), NOW)
    assert decision.changes == (BoardDeclined(101, ply),)
    assert decision.events == (GameDeclined(before.state, seat, "sorry"),)
    assert str(decision.summary) == "declined the game on board 101; the board is removed"


@pytest.mark.parametrize("ply", range(1, 12))
def test_a_draw_offer_then_its_answers(ply: int) -> None:
    offerer, other = (ALICE, BOB) if ply % 2 else (BOB, ALICE)
    offered = decide_move(snapshot(MOVES[:ply]), request(offerer.id, "propose"), NOW)
    assert offered.changes == (VoteOpened(101, "draw", offerer.id, ply, NOW),)
    assert str(offered.summary) == "offered a draw on board 101"
    assert offered.events[0] == BoardChanged(
        offered.state_after, f"{offerer.userid} offers a draw.", None, offerer.userid
    )
    votes = offered.state_after.votes
    assert votes == (OpenVote("draw", offerer.id, ply),)
    open_board = snapshot(MOVES[:ply], votes=votes)
    with pytest.raises(Refusal) as twice:
        decide_move(open_board, request(offerer.id, "propose"), NOW)
    assert twice.value.reason == (
        f"You have already offered a draw on board 101; wait for {other.userid}'s answer."
    )
    assert not twice.value.with_board
    with pytest.raises(Refusal) as own:
        decide_move(open_board, request(offerer.id, "accept"), NOW)
    assert own.value.reason == (
        f"{other.userid} has neither offered a draw nor asked to take back a move on board "
        "101, so there is nothing to accept."
    )
    rejected = decide_move(open_board, request(other.id, "reject"), NOW)
    assert rejected.changes == (VoteRemoved(101, "draw", offerer.id),)
    assert rejected.state_after.votes == ()
    assert str(rejected.summary) == "rejected the draw offer on board 101"
    for word in ("accept", "propose"):  # both proposing is an agreement
        agreed = decide_move(open_board, request(other.id, word), NOW)
        counts = ply >= 2 * RATED_MOVES_EACH
        assert agreed.changes == (
            GameFinished(
                101, None, Termination.DRAW_AGREED, NOW,
                expected_rating=outcome_rating(None) if counts else None,
                rated=counts, expected_ply=ply,
            ),
        )
        assert str(agreed.summary) == "agreed to a draw on board 101"
        assert agreed.events[0] == BoardChanged(
            agreed.state_after, f"{other.userid} accepted {offerer.userid}'s draw offer.",
            None, other.userid,
        )


@pytest.mark.parametrize("ply", range(2, 20))
def test_an_undo_request_and_its_take_back(ply: int) -> None:
    # The player who just moved asks: their last move is taken back.
    asker, other = (ALICE, BOB) if ply % 2 else (BOB, ALICE)
    asked = decide_move(snapshot(MOVES[:ply]), request(asker.id, "undo"), NOW)
    assert asked.changes == (VoteOpened(101, "undo", asker.id, ply, NOW),)
    assert str(asked.summary) == f"asked to take back move {ply}"
    board = snapshot(MOVES[:ply], votes=asked.state_after.votes)
    taken = decide_move(board, request(other.id, "accept"), NOW)
    game = Game.from_moves(MOVES[: ply - 1])
    assert taken.changes == (
        MovesTakenBack(101, ply, game.position, tuple(game.repetition_history())),
        VotesDropped(101),
    )
    after = taken.state_after
    assert after.ply == ply - 1 and after.position == game.position and after.votes == ()
    assert str(taken.summary) == f"took back move {ply} on board 101"
    assert taken.events[0] == BoardChanged(
        after,
        f"{other.userid} accepted: move {ply} taken back. It is {asker.userid}'s turn again.",
        None, other.userid,
    )
    # The player to move asks: their last move and the opponent's answer go.
    both = decide_move(snapshot(MOVES[:ply]), request(other.id, "undo"), NOW)
    assert str(both.summary) == f"asked to take back moves {ply - 1} to {ply}"
    # An answer to a request the board moved past is void: the request is removed.
    stale = snapshot(MOVES[: ply + 1], votes=asked.state_after.votes)
    with pytest.raises(Refusal) as void:
        decide_move(stale, request(other.id, "accept"), NOW)
    assert void.value.reason == (
        "The request to take back a move on board 101 no longer fits the game."
    )
    assert void.value.changes == (VoteRemoved(101, "undo", asker.id),)


def test_no_move_to_take_back_and_one_request_at_a_time() -> None:
    with pytest.raises(Refusal) as none:
        decide_move(snapshot(MOVES[:1]), request(BOB.id, "undo"), NOW)
    assert none.value.reason == "You have no move to take back on board 101."
    assert none.value.with_board
    votes = (OpenVote("undo", ALICE.id, 3),)
    with pytest.raises(Refusal) as first:
        decide_move(snapshot(MOVES[:3], votes=votes), request(BOB.id, "undo"), NOW)
    assert first.value.reason == (
        "alice has asked to take back a move on board 101; answer that first with accept "
        "or reject."
    )
