"""Queued and forced moves after a move, decided on values; games that end by a move."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbm_emergo.game.board import AUTOPLAYED_FORCED, AUTOPLAYED_QUEUED, QueueItem
from pbm_emergo.game.chain import follow
from pbm_emergo.game.changes import GameFinished, MoveStored, QueueTaken
from pbm_emergo.game.events import BoardChanged, QueuedMoveFailed
from pbm_emergo.game.play import Play, decide_move
from pbm_emergo.rules import Game, Termination
from tests.game.boards import ALICE, BOB, NOW, outcome_rating, random_game, seat_of_ply, snapshot

GAMES = [random_game(seed, 40) for seed in range(20, 26)]
PLIES = [(g, ply) for g in range(len(GAMES)) for ply in range(len(GAMES[g]) - 1)]
CORPUS = json.loads(
    (Path(__file__).parents[1] / "rules" / "data" / "games.json").read_text()
)


def request(player_id: int, text: str) -> Play:
    return Play.parse(101, player_id, "alice" if player_id == ALICE.id else "bob", text)


@pytest.mark.parametrize(("index", "ply"), PLIES[::2])
def test_a_queued_move_is_played_after_the_opponents(index: int, ply: int) -> None:
    moves = GAMES[index]
    mover, answerer = seat_of_ply(ply), seat_of_ply(ply + 1)
    queue = (QueueItem(answerer.id, moves[ply + 1], ply + 2, id=7),)
    decision = decide_move(snapshot(moves[:ply], queue=queue), request(mover.id, moves[ply]), NOW)
    game = Game.from_moves(moves[:ply + 1])
    if game.outcome() is not None:  # the game ended: nothing more is played
        assert [type(c) for c in decision.changes] == [MoveStored, QueueTaken, GameFinished]
        return
    first, second, taken = decision.changes[:3]
    assert isinstance(first, MoveStored) and first.expected_queued is True
    assert isinstance(second, MoveStored) and second.expected_queued is None
    assert second.autoplayed == AUTOPLAYED_QUEUED and second.notation == moves[ply + 1]
    assert second.expected_ply == ply + 1 and not second.expected_no_votes
    assert taken == QueueTaken(101, (7,))
    headline = decision.events[0]
    assert isinstance(headline, BoardChanged)
    assert headline.headline == (
        f"{mover.userid} played {moves[ply]} (move {ply + 1}).\n"
        f"{answerer.userid}'s queued move {moves[ply + 1]} was played (move {ply + 2}, Auto)."
    )
    assert str(decision.summary).startswith(
        f"played {moves[ply]} on board 101; then {answerer.userid}'s {moves[ply + 1]} (Auto)"
    )
    assert decision.state_after.moves[-1].autoplayed == AUTOPLAYED_QUEUED


@pytest.mark.parametrize(("index", "ply"), PLIES[1::4])
def test_a_conditional_queue_answers_only_the_move_it_names(index: int, ply: int) -> None:
    moves = GAMES[index]
    mover, answerer = seat_of_ply(ply), seat_of_ply(ply + 1)
    named = (QueueItem(answerer.id, moves[ply + 1], ply + 2, if_move=moves[ply], id=3),)
    decision = decide_move(snapshot(moves[:ply], queue=named), request(mover.id, moves[ply]), NOW)
    if Game.from_moves(moves[:ply + 1]).outcome() is None:
        stored = [c for c in decision.changes if isinstance(c, MoveStored)]
        assert [s.notation for s in stored][:2] == moves[ply:ply + 2]
    other = (QueueItem(answerer.id, moves[ply + 1], ply + 2, if_move="zz9", id=3),)
    cleared = decide_move(snapshot(moves[:ply], queue=other), request(mover.id, moves[ply]), NOW)
    assert [type(c) for c in cleared.changes][:2] == [MoveStored, QueueTaken]
    assert cleared.changes[1] == QueueTaken(101, (3,))
    assert not [e for e in cleared.events if isinstance(e, QueuedMoveFailed)]


@pytest.mark.parametrize(("index", "ply"), PLIES[::5])
def test_a_queued_move_for_another_move_number_fails(index: int, ply: int) -> None:
    moves = GAMES[index]
    mover, answerer = seat_of_ply(ply), seat_of_ply(ply + 1)
    if Game.from_moves(moves[:ply + 1]).outcome() is not None:
        pytest.skip("the move ends the game")
    queue = (QueueItem(answerer.id, moves[ply + 1], ply + 4, id=9),)
    decision = decide_move(snapshot(moves[:ply], queue=queue), request(mover.id, moves[ply]), NOW)
    failed = decision.events[1]
    assert failed == QueuedMoveFailed(
        decision.state_after, answerer, moves[ply + 1],
        f"it was queued as move {ply + 4}, but the next move is move {ply + 2}.",
    )
    assert decision.changes[-1] == QueueTaken(101, (9,))
    assert decision.state_after.ply == ply + 1


@pytest.mark.parametrize(("index", "ply"), PLIES[2::5])
def test_an_illegal_queued_move_fails_with_the_rules_reason(index: int, ply: int) -> None:
    moves = GAMES[index]
    mover, answerer = seat_of_ply(ply), seat_of_ply(ply + 1)
    after = Game.from_moves(moves[:ply + 1])
    if after.outcome() is not None:
        pytest.skip("the move ends the game")
    legal = {str(m) for m in after.position.legal_moves()}
    bad = next(
        f"{c}{r}" for c in "abcdefghi" for r in range(1, 10) if f"{c}{r}" not in legal
    )
    queue = (QueueItem(answerer.id, bad, ply + 2, id=1),)
    decision = decide_move(snapshot(moves[:ply], queue=queue), request(mover.id, moves[ply]), NOW)
    failed = decision.events[1]
    assert isinstance(failed, QueuedMoveFailed)
    assert failed.player == answerer and failed.notation == bad and failed.why


def _forced_cases() -> list[tuple[list[str], int]]:
    """Positions of random games where, after move ``ply``, the next player has exactly one
    legal move."""
    cases = []
    for seed in range(40, 200):
        game = Game()
        moves = random_game(seed, 60)
        for ply, move in enumerate(moves[:-1]):
            game.play(move)
            if game.outcome() is None and len(game.position.legal_moves()) == 1:
                cases.append((moves, ply))
                break
        if len(cases) == 12:
            break
    return cases


FORCED = _forced_cases()


@pytest.mark.parametrize(("moves", "ply"), FORCED)
def test_a_forced_move_is_played_under_autoplay_only(moves: list[str], ply: int) -> None:
    mover, forced = seat_of_ply(ply), seat_of_ply(ply + 1)
    before = snapshot(moves[:ply], autoplay=frozenset({forced.id}))
    decision = decide_move(before, request(mover.id, moves[ply]), NOW)
    stored = [c for c in decision.changes if isinstance(c, MoveStored)]
    assert len(stored) >= 2
    assert stored[1].autoplayed == AUTOPLAYED_FORCED and stored[1].player_id == forced.id
    assert f"{forced.userid}'s only legal move" in (decision.events[0].headline or "")
    plain = decide_move(snapshot(moves[:ply]), request(mover.id, moves[ply]), NOW)
    assert len(plain.changes) == 1
    # Switching autoplay on plays it without a move.
    waiting = snapshot(moves[:ply + 1])
    assert follow(waiting, NOW) is None
    followed = follow(waiting, NOW, autoplay_on=frozenset({forced.id}))
    assert followed is not None
    assert followed.changes[0] == stored[1].__class__(**{
        **stored[1].__dict__, "expected_queued": False, "expected_no_votes": True,
    })
    assert followed.events[0] == BoardChanged(followed.state_after, followed.events[0].headline)


@pytest.mark.parametrize("name", sorted(CORPUS))
@pytest.mark.parametrize("rated", [True, False])
def test_the_last_move_of_a_game_finishes_it(name: str, rated: bool) -> None:
    entry = CORPUS[name]
    moves = entry["moves"]
    ply = len(moves) - 1
    blocked_rule = "draw" if entry.get("blocked") == "draw" else "loss"
    before = snapshot(moves[:ply], rated=rated, blocked_rule=blocked_rule)
    decision = decide_move(before, request(seat_of_ply(ply).id, moves[ply]), NOW)
    game = Game.from_moves(moves, blocked=blocked_rule)  # type: ignore[arg-type]
    outcome = game.outcome()
    assert outcome is not None
    finished = decision.changes[-1]
    rating = outcome_rating(outcome.winner) if rated else None
    assert finished == GameFinished(
        101, outcome.winner, outcome.termination, NOW, expected_rating=rating, rated=rated,
        expected_ply=ply + 1,  # the board as the move before it leaves it
    )
    stored = decision.changes[0]
    assert isinstance(stored, MoveStored) and stored.to_move is None
    after = decision.state_after
    assert not after.active and after.winner == outcome.winner
    assert after.outcome_reason == outcome.termination.value
    assert str(decision.summary).endswith(".")


def test_a_chain_of_queued_moves_that_ends_the_game() -> None:
    entry = CORPUS[sorted(CORPUS)[0]]
    moves = entry["moves"]
    ply = len(moves) - 2
    blocked_rule = "draw" if entry.get("blocked") == "draw" else "loss"
    last = seat_of_ply(ply + 1)
    queue = (QueueItem(last.id, moves[-1], ply + 2, id=5),)
    before = snapshot(moves[:ply], queue=queue, blocked_rule=blocked_rule)
    decision = decide_move(before, request(seat_of_ply(ply).id, moves[ply]), NOW)
    kinds = [type(c) for c in decision.changes]
    assert kinds == [MoveStored, MoveStored, QueueTaken, GameFinished]
    assert not decision.state_after.active
    assert Termination(decision.state_after.outcome_reason or "") in Termination
    assert ALICE.id != BOB.id
