"""The service layer on both databases: players, boards, moves, finishing, ratings."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import delete, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import errors, games, players
from pbm_emergo.db.apply import apply
from pbm_emergo.db.models import Board, MoveRecord, Player, RatingChange, Vote
from pbm_emergo.db.session import create_engine_for
from pbm_emergo.game.changes import GameFinished, MoveStored
from pbm_emergo.game.decision import Refusal
from pbm_emergo.rules import Game, Position
from tests.support.moves import decide, play_stored

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def _players(session: Session) -> tuple[Player, Player]:
    alice = players.create_player(session, "Alice", "secret-a", ["Alice@Example.org"], NOW)
    bob = players.create_player(session, "bob", "secret-b", ["bob@example.org"], NOW)
    return alice, bob


def test_player_userid_is_case_insensitive_and_password_hashed(
    db_sessions: sessionmaker[Session],
) -> None:
    with db_sessions.begin() as session:
        alice, _ = _players(session)
        assert alice.userid == "Alice" and alice.userid_key == "alice"
        assert alice.password_hash.startswith("$argon2id$")
        assert "secret-a" not in alice.password_hash
    with db_sessions.begin() as session:
        found = players.find_player(session, "ALICE")
        assert found is not None and found.userid == "Alice"
        assert players.check_password(found.id, found.password_hash, "secret-a").ok
        assert not players.check_password(found.id, found.password_hash, "Secret-a").ok
        assert [a.address for a in found.addresses] == ["Alice@Example.org"]
        with pytest.raises(errors.UseridTakenError):
            players.create_player(session, "aLiCe", "x", [], NOW)


def test_userid_key_unique_in_the_database(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        _players(session)
    with pytest.raises(IntegrityError), db_sessions.begin() as session:
        session.add(Player(userid="ALICE", userid_key="alice", password_hash="x", created_at=NOW))


def test_timestamps_come_back_aware_utc(db_sessions: sessionmaker[Session]) -> None:
    paris = datetime(2026, 11, 21, 11, 0, tzinfo=UTC).astimezone(ZoneInfo("Europe/Paris"))
    with db_sessions.begin() as session:
        alice, _ = _players(session)
        alice.vacation_until = paris
    with db_sessions() as session:
        player = players.find_player(session, "alice")
        assert player is not None and player.vacation_until is not None
        assert player.vacation_until.tzinfo is not None
        assert player.vacation_until == datetime(2026, 11, 21, 11, 0, tzinfo=UTC)
        assert player.created_at == NOW


def test_naive_datetime_refused(db_sessions: sessionmaker[Session]) -> None:
    with pytest.raises(Exception, match="naive datetime"), db_sessions.begin() as session:
        players.create_player(session, "carol", "pw", [], datetime(2026, 1, 1))


def test_board_numbers_start_at_101_and_are_never_reused(
    db_sessions: sessionmaker[Session],
) -> None:
    with db_sessions.begin() as session:
        alice, bob = _players(session)
        first = games.create_board(session, alice, bob, NOW)
        second = games.create_board(session, bob, alice, NOW, rated=False)
        assert (first.number, second.number) == (101, 102)
    with db_sessions.begin() as session:
        session.execute(delete(Board).where(Board.number == 102))
    with db_sessions.begin() as session:
        alice = players.find_player(session, "alice")
        bob = players.find_player(session, "bob")
        assert alice and bob
        assert games.create_board(session, alice, bob, NOW).number == 103
    # A rolled-back challenge never existed: its number is handed out to the next one.
    with db_sessions() as session:
        alice = players.find_player(session, "alice")
        bob = players.find_player(session, "bob")
        assert alice and bob
        assert games.create_board(session, alice, bob, NOW).number == 104
        session.rollback()
    with db_sessions.begin() as session:
        alice = players.find_player(session, "alice")
        bob = players.find_player(session, "bob")
        assert alice and bob
        assert games.create_board(session, alice, bob, NOW).number == 104
    with db_sessions() as session:
        assert [b.number for b in session.scalars(select(Board).order_by(Board.number))] == [
            101,
            103,
            104,
        ]


def test_a_stored_move_records_move_and_cache(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _players(session)
        ids = [alice.id, bob.id]  # (the robot accounts have the first ids)
        board = games.create_board(session, alice, bob, NOW)
        assert board.position == Position().to_text() and board.ply == 0
        assert games.player_to_move(board) is alice
    reference = Game()
    later = NOW
    for ply in range(6):
        later += timedelta(minutes=1)
        with db_sessions.begin() as session:
            board = games.get_board(session, 101)
            assert board is not None
            mover = games.player_to_move(board)
            assert mover is not None
            move = reference.position.legal_moves()[0]
            applied = play_stored(
                session, board.number, str(move).upper(), mover, f"comment {ply}", later
            )
            reference.play(move)
            stored = applied.changes[0]
            assert isinstance(stored, MoveStored)
            assert stored.notation == str(move)
            assert stored.expected_ply + 1 == ply + 1
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None
        assert board.ply == 6 and board.last_move_at == later
        assert board.position == reference.position.to_text()
        assert games.current_position(board) == reference.position
        assert games.move_notations(session, board) == [str(m) for m in reference.moves]
        assert games.load_game(session, board).position == reference.position
        assert games.load_game(session, board, upto=3).position == reference.positions[3]
        records = session.scalars(select(MoveRecord).order_by(MoveRecord.number)).all()
        assert [r.comment for r in records] == [f"comment {i}" for i in range(6)]
        assert [r.player_id for r in records] == ids * 3


def test_move_refusals_change_nothing(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _players(session)
        carol = players.create_player(session, "carol", "pw", [], NOW)
        board = games.create_board(session, alice, bob, NOW)
        legal = {str(m) for m in Position().legal_moves()}
        first = next(c for c in ("e5", "a5", "e1", "e9") if c in legal)
        with pytest.raises(Refusal, match="not your turn"):
            decide(session, board.number, first, bob, None, NOW)
        with pytest.raises(Refusal, match="carol does not play on board 101"):
            decide(session, board.number, first, carol, None, NOW)
        stored = decide(session, board.number, first, alice, None, NOW).changes[0]
        assert isinstance(stored, MoveStored)
        with pytest.raises(errors.StaleMoveError) as stale:
            apply(session, [dataclasses.replace(stored, expected_ply=3)])
        assert "move 4" in str(stale.value) and "a later move" in str(stale.value)
        with pytest.raises(Refusal) as malformed:
            decide(session, board.number, "z9", alice, None, NOW)
        assert malformed.value.template == "error/malformed_move.txt.j2"
        illegal = next(c for c in ("e5", "a5", "e1", "e9") if c not in legal)
        with pytest.raises(Refusal) as refused:
            decide(session, board.number, illegal, alice, None, NOW)
        assert refused.value.template == "error/illegal_move.txt.j2"
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.ply == 0
        assert games.move_notations(session, board) == []


def test_finish_board_updates_results_and_ratings(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _players(session)
        board = games.create_board(session, alice, bob, NOW)
        session.add(Vote(board_number=board.number, kind="draw", player_id=bob.id, ply=0))
        session.flush()
        legal = str(Position().legal_moves()[0])
        move = decide(session, board.number, legal, alice, None, NOW)
        games.finish_board(session, board.number, "black", "resigned", NOW)
        assert board.status == "finished" and board.winner == "black"
        assert board.outcome_reason == "resigned" and board.to_move is None
        assert (board.white_rating_change, board.black_rating_change) == (-162, 162)
        assert games.player_to_move(board) is None
        with pytest.raises(errors.BoardFinishedError):
            games.finish_board(session, board.number, "white", "resigned", NOW)
        with pytest.raises(errors.BoardFinishedError):
            apply(session, move.changes)
    with db_sessions() as session:
        alice = players.find_player(session, "alice")
        bob = players.find_player(session, "bob")
        assert alice and bob
        assert (alice.rating, alice.lost, alice.rated_games) == (1438, 1, 1)
        assert (bob.rating, bob.won) == (1762, 1)
        history = session.scalars(select(RatingChange).order_by(RatingChange.id)).all()
        assert [(h.rating_before, h.rating_after) for h in history] == [(1600, 1438), (1600, 1762)]
        assert session.scalars(select(Vote)).all() == []


def test_unrated_draw_changes_no_rating(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _players(session)
        board = games.create_board(session, alice, bob, NOW, rated=False)
        games.finish_board(session, board.number, None, "draw agreed", NOW)
        assert (alice.drawn, bob.drawn, alice.rating, bob.rating) == (1, 1, 1600, 1600)
        assert board.white_rating_change is None


def test_game_over_by_rules_finishes_board(db_sessions: sessionmaker[Session]) -> None:
    # Play the first legal move every time until the rules end the game.
    game = Game()
    while game.outcome() is None and len(game.moves) < 400:
        game.play(game.position.legal_moves()[0])
    outcome = game.outcome()
    assert outcome is not None
    with db_sessions.begin() as session:
        alice, bob = _players(session)
        board = games.create_board(session, alice, bob, NOW)
        last = None
        for move in game.moves:
            mover = games.player_to_move(board)
            assert mover is not None
            last = play_stored(session, board.number, str(move), mover, None, NOW)
        assert last is not None
        finished = last.changes[-1]
        assert isinstance(finished, GameFinished)
        assert (finished.winner, finished.termination) == (outcome.winner, outcome.termination)
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None
        assert board.status == "finished" and board.winner == outcome.winner
        assert board.outcome_reason == outcome.termination and board.ply == len(game.moves)


def test_foreign_keys_enforced(db_sessions: sessionmaker[Session]) -> None:
    with pytest.raises(IntegrityError), db_sessions.begin() as session:
        session.add(
            MoveRecord(board_number=999, number=1, player_id=999, notation="e5", played_at=NOW)
        )
        session.flush()


def test_sqlite_runs_in_wal_mode(tmp_path: Path) -> None:
    engine = create_engine_for(f"sqlite:///{tmp_path / 'data' / 'db.sqlite3'}")
    try:
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
            assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 10_000
    finally:
        engine.dispose()
