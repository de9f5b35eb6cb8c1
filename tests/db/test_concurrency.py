"""Real concurrent transactions: two moves on one board committed at the same moment.

Each thread has its own session and connection; a barrier releases them together. Exactly
one move is stored, the other is refused as stale, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import errors as db_errors
from pbm_emergo.db import games, players
from pbm_emergo.db.apply import apply
from pbm_emergo.db.models import Board, MoveRecord
from pbm_emergo.db.session import create_engine_for
from pbm_emergo.rules import Position
from tests.support.moves import decide

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
ROUNDS = 8


def _setup(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        alice = players.create_player(session, "alice", "pw", [], NOW)
        bob = players.create_player(session, "bob", "pw", [], NOW)
        games.create_board(session, alice, bob, NOW)


def _race(
    sessions: sessionmaker[Session], ply: int, moves: list[str]
) -> list[BaseException | None]:
    """Both threads read the board (ply), then play their move as move ply + 1 at once."""
    barrier = threading.Barrier(len(moves), timeout=30)
    results: list[BaseException | None] = [None] * len(moves)

    def play(index: int) -> None:
        try:
            with sessions() as session:
                board = session.get(Board, 101)
                assert board is not None and board.ply == ply
                mover = games.player_to_move(board)
                assert mover is not None
                decision = decide(session, 101, moves[index], mover, None, NOW)
            barrier.wait()
            with sessions.begin() as session:
                apply(session, decision.changes)
        except BaseException as err:  # noqa: BLE001 - reported to the main thread
            results[index] = err

    threads = [threading.Thread(target=play, args=(i,)) for i in range(len(moves))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def _play_rounds(sessions: sessionmaker[Session]) -> list[str]:
    """ROUNDS races in a row; returns the moves that were stored."""
    position = Position()
    stored: list[str] = []
    for ply in range(ROUNDS):
        # Two different moves where there is a choice, else (a compulsory capture) the same
        # move twice, like a mail delivered twice.
        legal = [str(m) for m in position.legal_moves()]
        candidates = [legal[0], legal[-1]]
        results = _race(sessions, ply, candidates)
        errors = [r for r in results if r is not None]
        assert len(errors) == 1, results
        assert isinstance(errors[0], db_errors.StaleMoveError), errors
        winner = candidates[results.index(None)]
        stored.append(winner)
        position = position.play(winner)
    return stored


def test_two_concurrent_moves_exactly_one_applied(db_sessions: sessionmaker[Session]) -> None:
    _setup(db_sessions)
    stored = _play_rounds(db_sessions)
    with db_sessions() as session:
        board = session.get(Board, 101)
        assert board is not None
        assert board.ply == ROUNDS
        assert games.move_notations(session, board) == stored
        count = session.scalar(select(func.count()).select_from(MoveRecord))
        assert count == ROUNDS


def test_concurrent_moves_meet_at_the_conditional_update(postgres_database_url: str) -> None:
    """On PostgreSQL, hold both transactions until each has read the board and passed the
    early check, so that the two conditional UPDATEs really collide: one waits for the
    other's row lock, then matches no row (ply moved on) and is refused."""
    engine: Engine = create_engine_for(postgres_database_url)
    try:
        sessions = sessionmaker(engine, expire_on_commit=False)
        _setup(sessions)
        at_update = threading.Barrier(2, timeout=30)

        @event.listens_for(engine, "before_cursor_execute")
        def wait_at_update(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            # The conditional UPDATE of the move (its SET columns come in any order).
            if statement.startswith("UPDATE boards SET") and "boards.ply =" in statement:
                at_update.wait()

        candidates = [str(m) for m in Position().legal_moves()[:2]]
        results = _race(sessions, 0, candidates)
        errors = [r for r in results if r is not None]
        assert len(errors) == 1, results
        stale = errors[0]
        assert isinstance(stale, db_errors.StaleMoveError)
        assert stale.actual_ply is None  # refused by the UPDATE, not by the early check
        with sessions() as session:
            board = session.get(Board, 101)
            assert board is not None and board.ply == 1
            assert games.move_notations(session, board) == [candidates[results.index(None)]]
    finally:
        engine.dispose()


@pytest.mark.parametrize("threads", [4])
def test_concurrent_challenges_get_distinct_numbers(
    db_sessions: sessionmaker[Session], threads: int
) -> None:
    _setup(db_sessions)
    barrier = threading.Barrier(threads, timeout=30)
    numbers: list[int] = []
    errors: list[BaseException] = []

    def challenge() -> None:
        try:
            barrier.wait()
            with db_sessions.begin() as session:
                alice = players.find_player(session, "alice")
                bob = players.find_player(session, "bob")
                assert alice and bob
                numbers.append(games.create_board(session, alice, bob, NOW).number)
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    workers = [threading.Thread(target=challenge) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert errors == []
    assert sorted(numbers) == list(range(102, 102 + threads))


def test_a_move_racing_a_resignation_is_not_stored_on_the_finished_board(
    db_sessions: sessionmaker[Session],
) -> None:
    # The mover's transaction has read the board (active) when the opponent's resignation
    # commits. PostgreSQL lets both go ahead: the move must then be refused, not stored on a
    # finished board. (SQLite runs them one after the other: the move, then the resignation.)
    _setup(db_sessions)
    finished = threading.Event()
    errors: list[BaseException] = []

    def resign() -> None:
        try:
            with db_sessions.begin() as session:
                board = session.get(Board, 101)
                assert board is not None
                games.finish_board(session, board.number, "white", "resigned", NOW)
            finished.set()
        except BaseException as err:  # noqa: BLE001 - reported to the main thread
            errors.append(err)

    resigner = threading.Thread(target=resign)
    refused: BaseException | None = None
    with db_sessions.begin() as session:
        board = session.get(Board, 101)
        assert board is not None and board.status == "active"
        mover = games.player_to_move(board)
        assert mover is not None
        move = decide(session, board.number, "e4", mover, None, NOW)
        resigner.start()
        finished.wait(timeout=2)  # PostgreSQL: committed; SQLite: waiting for our lock
        try:
            apply(session, move.changes)
        except db_errors.ServiceError as err:
            refused = err
    resigner.join(timeout=30)
    assert errors == []
    with db_sessions() as session:
        board = session.get(Board, 101)
        assert board is not None and board.status == "finished"
        stored = session.scalar(select(func.count()).select_from(MoveRecord))
        assert board.to_move is None and board.ply == stored
        if refused is not None:
            assert isinstance(refused, db_errors.BoardFinishedError)
            assert stored == 0
