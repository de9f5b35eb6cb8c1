"""``db.apply`` on both databases: a decision's changes stored, each re-checking what the
decision read (a stale change raises what the data layer's write raises)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import errors, games, players
from pbm_emergo.db.apply import apply
from pbm_emergo.db.models import Board, MoveRecord, Player, Vote
from pbm_emergo.db.reads.snapshot import read_snapshot
from pbm_emergo.game.board import BoardSnapshot, QueueItem
from pbm_emergo.game.changes import (
    BoardDeclined,
    GameFinished,
    MovesTakenBack,
    MoveStored,
    QueueTaken,
    VoteOpened,
    VoteRemoved,
)
from pbm_emergo.game.decision import Decision
from pbm_emergo.game.play import Play, decide_move
from pbm_emergo.game.ratings import GameRating
from pbm_emergo.rules import Game, Position, Termination

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def _board(session: Session) -> tuple[Player, Player]:
    alice = players.create_player(session, "alice", "secret-a", ["alice@example.org"], NOW)
    bob = players.create_player(session, "bob", "secret-b", ["bob@example.org"], NOW)
    games.create_board(session, alice, bob, NOW)
    return alice, bob


def _snapshot(session: Session) -> BoardSnapshot:
    found = games.get_board_and_facts(session, 101)
    assert found is not None
    return read_snapshot(session, *found)


def _decide(session: Session, player: Player, text: str) -> Decision:
    request = Play.parse(101, player.id, player.userid, text)
    return decide_move(_snapshot(session), request, NOW)


def _first_moves(n: int) -> list[str]:
    game = Game()
    while len(game.moves) < n:
        game.play(game.position.legal_moves()[0])
    return [str(m) for m in game.moves]


def test_a_decided_move_is_stored_as_decided(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _board(session)
    moves = _first_moves(4)
    for ply, move in enumerate(moves):
        with db_sessions.begin() as session:
            apply(session, _decide(session, (alice, bob)[ply % 2], move).changes)
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.ply == 4
        game = Game.from_moves(moves)
        assert games.current_position(board) == game.position
        assert games.resume_game(session, board).repetition_history() == (
            game.repetition_history()
        )
        assert games.move_notations(session, board) == moves


def test_a_stale_move_is_refused_as_before(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _board(session)
        first = _decide(session, alice, _first_moves(1)[0])
    with db_sessions.begin() as session:
        apply(session, first.changes)
    stored = first.changes[0]
    assert isinstance(stored, MoveStored)
    # The same move again: the board is at move 2 now.
    with pytest.raises(errors.StaleMoveError), db_sessions.begin() as session:
        apply(session, first.changes)
    # boards.queued as read no longer holds.
    with db_sessions.begin() as session:
        second = _decide(session, bob, _first_moves(2)[1])
        session.execute(select(Board).where(Board.number == 101)).scalar_one().queued = True
        session.flush()
        with pytest.raises(errors.StaleMoveError):
            apply(session, second.changes)
        session.rollback()
    # A vote stored since the move read none.
    with db_sessions.begin() as session:
        second = _decide(session, bob, _first_moves(2)[1])
        session.add(Vote(board_number=101, kind="draw", player_id=alice.id, ply=1))
        session.flush()
        with pytest.raises(errors.StaleMoveError):
            apply(session, second.changes)
        session.rollback()
    # The game ended meanwhile.
    with db_sessions.begin() as session:
        second = _decide(session, bob, _first_moves(2)[1])
        games.finish_board(session, 101, "white", Termination.RESIGNED, NOW)
        with pytest.raises(errors.BoardFinishedError):
            apply(session, second.changes)
        session.rollback()
    with db_sessions() as session:
        assert len(session.scalars(select(MoveRecord)).all()) == 1


def test_votes_and_take_backs_re_check(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _board(session)
        apply(session, _decide(session, alice, _first_moves(1)[0]).changes)
    with db_sessions.begin() as session:
        asked = _decide(session, alice, "undo")
    opened = asked.changes[0]
    assert isinstance(opened, VoteOpened)
    with db_sessions.begin() as session:
        apply(session, asked.changes)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, asked.changes)  # one vote of a kind
    with db_sessions.begin() as session:
        taken = _decide(session, bob, "accept")
    back = taken.changes[0]
    assert isinstance(back, MovesTakenBack)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [dataclasses.replace(back, expected_ply=5)])
    with db_sessions.begin() as session:
        apply(session, taken.changes)
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.ply == 0
        assert games.current_position(board) == Position()
        assert session.scalars(select(Vote)).all() == []
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [VoteRemoved(101, "undo", alice.id)])  # answered already


def test_queues_finishes_and_declines_re_check(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _board(session)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [QueueTaken(101, (12345,))])
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [BoardDeclined(101, 3)])
    announced = GameRating(1600, 1600, 99, -99)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [GameFinished(101, "white", Termination.RESIGNED, NOW, announced)])
    with db_sessions.begin() as session:
        resigned = _decide(session, bob, "resign")  # before bob's first move: declines
        assert resigned.changes == (BoardDeclined(101, 0),)
        ended = GameFinished(
            101, "white", Termination.RESIGNED, NOW, GameRating(1600, 1600, 32, -32)
        )
        apply(session, [ended])
        with pytest.raises(errors.BoardFinishedError):
            apply(session, [ended])
        session.rollback()
    with db_sessions.begin() as session:
        apply(session, resigned.changes)
    with db_sessions() as session:
        assert games.get_board(session, 101) is None


def test_a_queued_move_played_with_the_move(db_sessions: sessionmaker[Session]) -> None:
    from pbm_emergo.db import autoplay

    moves = _first_moves(2)
    with db_sessions.begin() as session:
        alice, bob = _board(session)
        autoplay.replace_queue(session, 101, bob.id, 0, [QueueItem(bob.id, moves[1], 2)], NOW)
    with db_sessions.begin() as session:
        decision = _decide(session, alice, moves[0])
        assert [type(c) for c in decision.changes] == [MoveStored, MoveStored, QueueTaken]
        apply(session, decision.changes)
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.ply == 2 and not board.queued
        assert games.move_notations(session, board) == moves
