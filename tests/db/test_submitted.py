"""Submitted moves in the database (db/submitted.py), written through ``apply``: one per
player and board, replaced by a new submission, dropped, and the last move's id that tells
whether the board's moves changed since; SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import games, players, submitted
from pbm_emergo.db.apply import apply
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.game.board_changes import MoveSubmitted, SubmittedMoveDropped
from pbm_emergo.game.play import Play, decide_move
from pbm_emergo.game.submit import Submitted

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def test_a_submission_is_kept_replaced_and_dropped(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice = players.create_player(session, "alice", "secret-a", ["alice@example.org"], NOW)
        bob = players.create_player(session, "bob", "secret-b", ["bob@example.org"], NOW)
        games.create_board(session, alice, bob, NOW)
        assert submitted.last_move_id(session, 101) == 0
        apply(session, [MoveSubmitted(101, alice.id, "e4", "hi", 0, NOW)])
    with db_sessions.begin() as session:
        assert submitted.submitted_move(session, 101, alice.id) == Submitted(
            101, alice.id, "e4", "hi", 0, NOW
        )
        assert submitted.submitted_move(session, 101, bob.id) is None
        apply(session, [MoveSubmitted(101, alice.id, "d4", None, 0, NOW)])
    with db_sessions.begin() as session:
        found = submitted.submitted_move(session, 101, alice.id)
        assert found is not None and (found.notation, found.comment) == ("d4", "")
        # A move changes the last move's id.
        found = read_board(session, 101)
        assert found is not None
        request = Play.parse(101, alice.id, "alice", "e4")
        apply(session, decide_move(found.snapshot, request, NOW).changes)
    with db_sessions.begin() as session:
        assert submitted.last_move_id(session, 101) > 0
        apply(session, [SubmittedMoveDropped(101, alice.id), SubmittedMoveDropped(101, bob.id)])
    with db_sessions() as session:
        assert submitted.submitted_move(session, 101, alice.id) is None
