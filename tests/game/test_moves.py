"""A move decided on values: what is stored, what the players are told, and every refusal."""

from __future__ import annotations

import pytest

from pbm_emergo.game.board import WHITE
from pbm_emergo.game.changes import GameFinished, MoveStored, VotesDropped
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.events import BoardChanged
from pbm_emergo.game.play import Play, decide_move
from pbm_emergo.game.sentences import moves_in_lines
from pbm_emergo.rules import Game, Termination
from tests.game.boards import ALICE, BOB, CAROL_ID, NOW, random_game, seat_of_ply, snapshot

# Positions all through a few random games: every ply of them is a case.
GAMES = [random_game(seed, 40) for seed in range(6)]
PLIES = [(g, ply) for g in range(len(GAMES)) for ply in range(len(GAMES[g]))]


def request(player_id: int, text: str, comment: str = "") -> Play:
    userid = {ALICE.id: "alice", BOB.id: "bob"}.get(player_id, "carol")
    return Play.parse(101, player_id, userid, text, comment)


@pytest.mark.parametrize(("index", "ply"), PLIES)
def test_a_legal_move_is_stored_with_the_board_after_it(index: int, ply: int) -> None:
    moves = GAMES[index]
    before = snapshot(moves[:ply])
    mover = seat_of_ply(ply)
    decision = decide_move(before, request(mover.id, f"{moves[ply]}#{ply + 1}", "hi"), NOW)
    game = Game.from_moves(moves[: ply + 1])
    stored = decision.changes[0]
    assert isinstance(stored, MoveStored)
    assert stored.board == 101 and stored.expected_ply == ply
    assert stored.position == game.position
    assert stored.repetition == tuple(game.repetition_history())
    assert stored.notation == moves[ply] and stored.player_id == mover.id
    assert stored.comment == "hi" and stored.played_at == NOW and stored.autoplayed is None
    assert stored.expected_queued is False and stored.expected_no_votes is True
    assert stored.to_move == (None if game.outcome() else game.position.to_move)
    after = decision.state_after
    assert after.ply == ply + 1 and after.position == game.position
    assert after.moves[-1].notation == moves[ply]
    changed = decision.events[0]
    assert isinstance(changed, BoardChanged)
    assert changed.headline == f"{mover.userid} played {moves[ply]} (move {ply + 1})."
    assert changed.comment == "hi" and changed.commenter == mover.userid
    assert str(decision.summary).startswith(f"played {moves[ply]} on board 101")
    if game.outcome() is None:
        assert len(decision.changes) == 1 and after.active
    else:
        assert isinstance(decision.changes[-1], GameFinished) and not after.active


@pytest.mark.parametrize(("index", "ply"), PLIES[::3])
def test_a_board_without_repetition_keys_is_replayed_to_the_same_move(
    index: int, ply: int
) -> None:
    moves = GAMES[index]
    mover = seat_of_ply(ply)
    kept = decide_move(snapshot(moves[:ply]), request(mover.id, moves[ply]), NOW)
    replayed = decide_move(
        snapshot(moves[:ply], resumed=False), request(mover.id, moves[ply]), NOW
    )
    assert kept == replayed


@pytest.mark.parametrize(("index", "ply"), PLIES[::2])
def test_not_your_turn(index: int, ply: int) -> None:
    moves = GAMES[index]
    waiting = seat_of_ply(ply + 1)
    with pytest.raises(Refusal) as refused:
        decide_move(snapshot(moves[:ply]), request(waiting.id, moves[ply]), NOW)
    to_move = seat_of_ply(ply).userid
    assert refused.value.reason == (
        f"It is not your turn on board 101: it is {to_move}'s."
    )
    assert refused.value.with_board and refused.value.changes == ()
    # The reply says how to queue the move instead.
    assert refused.value.template == "error/not_your_turn.txt.j2"
    assert refused.value.details == {
        "queue": moves[ply], "userid": waiting.userid, "opponent": to_move, "number": 101,
    }


def test_only_a_move_written_as_one_is_offered_to_the_queue() -> None:
    with pytest.raises(Refusal) as refused:
        decide_move(snapshot(GAMES[0][:4]), request(BOB.id, "hello"), NOW)
    assert refused.value.reason == "It is not your turn on board 101: it is alice's."
    assert refused.value.details["queue"] is None
    with pytest.raises(Refusal) as refused:
        decide_move(snapshot(GAMES[0][:4]), request(BOB.id, "E5"), NOW)
    assert refused.value.details["queue"] == "e5"


def test_a_move_numbered_for_after_the_opponents_is_not_the_players_turn() -> None:
    # Bob writes #6 while move 5 is alice's: his number is right for his next move.
    moves = GAMES[0][:4]
    with pytest.raises(Refusal) as refused:
        decide_move(snapshot(moves), request(BOB.id, "e5#6"), NOW)
    assert refused.value.reason == "It is not your turn on board 101: it is alice's."
    assert refused.value.template == "error/not_your_turn.txt.j2"
    # A number further off, or a keyword, is the stale number it was.
    for text in ("e5#7", "e5#4", "propose#6", "resign#6"):
        with pytest.raises(Refusal) as refused:
            decide_move(snapshot(moves), request(BOB.id, text), NOW)
        assert refused.value.template == "error/stale_move.txt.j2", text


@pytest.mark.parametrize(("index", "ply"), PLIES[::2])
def test_an_illegal_move_lists_the_legal_ones(index: int, ply: int) -> None:
    moves = GAMES[index]
    before = snapshot(moves[:ply])
    position = before.state.position
    legal = {str(m) for m in position.legal_moves()}
    # A cell to enter on that is not a legal move now (or any move at all when the
    # position has no entry to make).
    illegal = next(
        (f"{c}{r}" for c in "abcdefghi" for r in range(1, 10)
         if f"{c}{r}" not in legal and _is_move(position, f"{c}{r}") is False),
        None,
    )
    if illegal is None:
        pytest.skip("every cell is a legal entry")
    with pytest.raises(Refusal) as refused:
        decide_move(before, request(seat_of_ply(ply).id, illegal), NOW)
    assert refused.value.reason == f"{illegal} is not a legal move on board 101 now."
    assert refused.value.template == "error/illegal_move.txt.j2"
    details = refused.value.details
    assert details["legal_count"] == len(legal)
    assert details["legal_lines"] == moves_in_lines(position.legal_moves())
    assert details["capture_size"] == position.capture_size() and details["why"]


def _is_move(position: object, text: str) -> bool | None:
    from pbm_emergo.rules import IllegalMoveError, MoveError, Position

    assert isinstance(position, Position)
    try:
        position.parse_move(text)
    except IllegalMoveError:
        return False
    except MoveError:
        return None
    return True


@pytest.mark.parametrize("text", ["z9", "hello", "a0", "e4-", "xx"])
def test_a_malformed_move(text: str) -> None:
    with pytest.raises(Refusal) as refused:
        decide_move(snapshot(), request(ALICE.id, text), NOW)
    assert refused.value.template == "error/malformed_move.txt.j2"
    assert refused.value.with_board


@pytest.mark.parametrize("guard", [1, 2, 5, 6, 11, 999])
def test_the_move_number_guard(guard: int) -> None:
    moves = GAMES[0][:4]
    if guard == 5:
        decision = decide_move(snapshot(moves), request(ALICE.id, f"{GAMES[0][4]}#5"), NOW)
        assert decision.state_after.ply == 5
        return
    with pytest.raises(Refusal) as refused:
        decide_move(snapshot(moves), request(ALICE.id, f"{GAMES[0][4]}#{guard}"), NOW)
    assert refused.value.reason == (
        f"Board 101 is at move 5, not move {guard}: nothing was done."
    )
    assert refused.value.template == "error/stale_move.txt.j2"
    assert refused.value.details == {"given": guard, "expected": 5}


@pytest.mark.parametrize("text", ["e5", "resign", "propose", "accept", "undo"])
def test_who_does_not_play_on_the_board(text: str) -> None:
    with pytest.raises(Refusal) as refused:
        decide_move(snapshot(GAMES[1][:3]), request(CAROL_ID, text), NOW)
    assert refused.value.reason == (
        "carol does not play on board 101: it is alice against bob."
    )
    assert not refused.value.with_board


@pytest.mark.parametrize("text", ["e5", "resign", "propose", "reject", "undo"])
def test_a_game_over_takes_nothing(text: str) -> None:
    over = snapshot(GAMES[1][:6], finished=(WHITE, Termination.RESIGNED))
    with pytest.raises(Refusal) as refused:
        decide_move(over, request(ALICE.id, text), NOW)
    assert refused.value.reason == (
        "The game on board 101 is over: alice (Ohs) wins: bob resigned."
    )


def test_a_move_answers_no_to_the_draw_offer_of_the_opponent() -> None:
    from pbm_emergo.game.board import OpenVote

    moves = GAMES[2][:6]
    votes = (OpenVote("draw", BOB.id, 5), OpenVote("draw", ALICE.id, 4))
    decision = decide_move(snapshot(moves, votes=votes), request(ALICE.id, GAMES[2][6]), NOW)
    stored, dropped = decision.changes[:2]
    assert isinstance(stored, MoveStored) and not stored.expected_no_votes
    assert dropped == VotesDropped(101, keep_draw_of=ALICE.id)
    assert decision.state_after.votes == (OpenVote("draw", ALICE.id, 4),)


@pytest.mark.parametrize("ply", [1, 2, 7, 20])
def test_a_robots_move_tells_the_move_it_answers(ply: int) -> None:
    """bob plays as a robot would: its board mail says alice's move before its own, since
    it takes the place of her own board mail (one mail a turn against a robot)."""
    from pbm_emergo.game.play import decide_robot_action

    moves = GAMES[0]
    robot = seat_of_ply(ply)
    before = snapshot(moves[:ply])
    decision = decide_robot_action(before, robot.id, "move", moves[ply], NOW)
    [event] = decision.events
    assert isinstance(event, BoardChanged)
    person = "bob" if robot.id == ALICE.id else "alice"
    assert event.headline == (
        f"{person} played {moves[ply - 1]} (move {ply}). "
        f"{robot.userid} played {moves[ply]} (move {ply + 1})."
    )
    alone = decide_robot_action(snapshot(), ALICE.id, "move", moves[0], NOW)
    assert [e.headline for e in alone.events if isinstance(e, BoardChanged)] == [
        f"alice played {moves[0]} (move 1)."
    ]
