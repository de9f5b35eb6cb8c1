"""``pbm-emergo db`` and ``pbm-emergo admin`` against real databases (both backends), and the
queries behind them (:mod:`pbm_emergo.db.reads`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.cli import main
from pbm_emergo.db import games, inbox, outbox, reads
from pbm_emergo.db.models import Board
from pbm_emergo.db.players import create_player, record_login_failure
from pbm_emergo.db.session import PROJECT_ROOT
from pbm_emergo.robot import ROBOTS
from pbm_emergo.rules import Game, render_board
from tests.support.moves import play_stored
from tests.support.statements import write_transactions

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def run(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> tuple[int, str, str]:
    status = main([*args, "--database-url", url])
    out, err = capsys.readouterr()
    return status, out, err


def admin(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> tuple[int, str, str]:
    return run(capsys, url, "admin", *args)


def _game_with_moves(sessions: sessionmaker[Session], n: int) -> Game:
    game = Game()
    with sessions.begin() as session:
        alice = create_player(session, "Alice", "pw", ["alice@example.org"], NOW)
        bob = create_player(session, "bob", "pw", ["bob@example.org"], NOW)
        board = games.create_board(session, alice, bob, NOW)
        for _ in range(n):
            move = game.position.legal_moves()[0]
            game.play(move)
            mover = games.player_to_move(board)
            assert mover is not None
            play_stored(session, board.number, str(move), mover, None, NOW)
        other = games.create_board(session, bob, alice, NOW)
        games.finish_board(session, other.number, None, "draw agreed", NOW)
    return game


@pytest.mark.parametrize("command", ["games", "players", "mail"])
def test_json_lists_on_an_empty_database(
    capsys: pytest.CaptureFixture[str], database_url: str, command: str
) -> None:
    status, out, err = admin(capsys, database_url, command, "--json")
    assert (status, err) == (0, "")
    listed = json.loads(out)
    if command == "players":  # the robot accounts come with the database (migration 0004)
        assert [p["userid"] for p in listed] == ["robot1", "robot2", "robot3"]
    else:
        assert listed == []


def test_show_json_has_the_documented_keys(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    game = _game_with_moves(db_sessions, 5)
    status, out, _ = admin(capsys, database_url, "show", "101", "--json")
    assert status == 0
    shown = json.loads(out)
    assert shown["board"] == 101
    assert shown["players"] == {"white": "Alice", "black": "bob"}
    assert shown["moves"] == [str(m) for m in game.moves]
    assert shown["to_move"] == "bob"
    assert shown["outcome"] is None
    assert shown["position"] == game.position.to_text()

    status, out, _ = admin(capsys, database_url, "show", "102", "--json")
    finished = json.loads(out)
    assert finished["to_move"] is None and finished["moves"] == []
    assert finished["outcome"] == {"winner": None, "reason": "draw agreed"}


def test_show_prints_the_board(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    game = _game_with_moves(db_sessions, 4)
    status, out, _ = admin(capsys, database_url, "show", "101")
    assert status == 0
    assert "Board 101: Alice (Ohs, white) vs bob (Eks, black)" in out
    assert "It is Alice's turn." in out
    assert render_board(game.position, "Alice", "bob").rstrip("\n") in out
    status, _, err = admin(capsys, database_url, "show", "999")
    assert status == 1 and "no board 999" in err


def test_games_filters_and_aligned_table(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    _game_with_moves(db_sessions, 3)
    status, out, _ = admin(capsys, database_url, "games", "--status", "active", "--json")
    assert [g["board"] for g in json.loads(out)] == [101]
    status, out, _ = admin(capsys, database_url, "games", "--player", "ALICE", "--json")
    assert [g["board"] for g in json.loads(out)] == [101, 102]
    status, out, _ = admin(capsys, database_url, "games")
    lines = out.splitlines()
    assert lines[0].split() == ["board", "white", "black", "status", "moves", "to", "move"] + [
        "last",
        "move",
        "result",
    ]
    # Aligned: every column starts at the same offset on every line.
    status_col = lines[0].index("status")
    assert lines[2][status_col:].startswith("active")
    assert lines[3][status_col:].startswith("finished")
    assert "draw (draw agreed)" in lines[3]
    status, _, err = admin(capsys, database_url, "games", "--player", "nobody")
    assert status == 1 and "no player" in err


def test_players_and_player(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    _game_with_moves(db_sessions, 2)
    status, out, _ = admin(capsys, database_url, "players", "--json")
    players = [p for p in json.loads(out) if p["userid"] not in ROBOTS]
    assert [p["userid"] for p in players] == ["Alice", "bob"]
    assert players[0]["active_boards"] == 1 and players[0]["drawn"] == 1
    assert players[0]["addresses"] == ["alice@example.org"]
    assert "password" not in out and "argon2" not in out
    status, out, _ = admin(capsys, database_url, "player", "BOB", "--json")
    bob = json.loads(out)
    assert bob["userid"] == "bob" and [b["board"] for b in bob["boards"]] == [101, 102]
    assert bob["rating_history"] == [
        {"board": 102, "before": 1600, "after": 1600, "at": NOW.isoformat()}
    ]
    status, out, _ = admin(capsys, database_url, "player", "bob")
    assert status == 0 and "Player bob" in out and "argon2" not in out


def test_mail_and_requeue(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    with db_sessions.begin() as session:
        inbound, _ = inbox.enqueue_inbound(session, b"x", "a@example.org", ["p@x"], "<1@x>", NOW)
        inbound.status, inbound.attempts, inbound.last_error = "dead", 5, "ValueError: boom"
        outbox.enqueue_outbound(session, "a@example.org", b"reply", NOW, inbound_id=inbound.id)
    status, out, _ = admin(capsys, database_url, "mail", "--status", "dead", "--json")
    (dead,) = json.loads(out)
    assert (dead["id"], dead["attempts"], dead["last_error"]) == ("in-1", 5, "ValueError: boom")
    status, out, _ = admin(capsys, database_url, "mail")
    assert "in-1" in out and "out-1" in out and "ValueError: boom" in out
    status, _, err = admin(capsys, database_url, "requeue", "1")
    assert status == 1 and "ambiguous" in err
    status, out, _ = admin(capsys, database_url, "requeue", "in-1")
    assert status == 0 and "in-1 requeued" in out
    status, out, _ = admin(capsys, database_url, "mail", "--queue", "inbound", "--json")
    (again,) = json.loads(out)
    assert (again["status"], again["attempts"]) == ("pending", 0)
    status, _, err = admin(capsys, database_url, "requeue", "out-9")
    assert status == 1 and "no such message" in err


def test_admin_on_an_unmigrated_database_says_what_to_do(
    capsys: pytest.CaptureFixture[str], empty_database_url: str
) -> None:
    status, _, err = admin(capsys, empty_database_url, "games")
    assert status == 1 and "pbm-emergo db upgrade" in err


def test_db_upgrade_command_uses_the_default_database(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
    env["PBM_EMERGO_DATA_DIR"] = str(tmp_path / "data")
    cli = [sys.executable, "-m", "pbm_emergo"]
    done = subprocess.run(
        [*cli, "db", "upgrade"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "(up to date)" in done.stdout
    assert (tmp_path / "data" / "pbm-emergo.sqlite3").exists()
    done = subprocess.run(
        [*cli, "admin", "games", "--json"], cwd=PROJECT_ROOT, env=env, capture_output=True,
        text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


# --- the queries behind the commands (pbm_emergo.db.reads) -----------------------------


def test_reports_game_rows(db_sessions: sessionmaker[Session]) -> None:
    _game_with_moves(db_sessions, 3)
    with db_sessions.begin() as session:
        rows = reads.game_rows(session)
        assert [r.number for r in rows] == [101, 102]
        active, finished = rows
        assert (active.white, active.black, active.status) == ("Alice", "bob", "active")
        assert (active.move_count, active.to_move, active.outcome) == (3, "bob", None)
        assert (active.created_at, active.last_move_at) == (NOW, NOW)
        assert (finished.white, finished.to_move, finished.last_move_at) == ("bob", None, None)
        assert finished.outcome == reads.BoardOutcome(winner=None, reason="draw agreed")
        assert [r.number for r in reads.game_rows(session, status="finished")] == [102]
        assert reads.game_rows(session, player="BOB") == rows
        assert reads.game_rows(session, status="active", player="alice") == [active]
        with pytest.raises(reads.UnknownPlayerError) as raised:
            reads.game_rows(session, player="nobody")
        assert raised.value.userid == "nobody"


def test_reports_board_report(db_sessions: sessionmaker[Session]) -> None:
    game = _game_with_moves(db_sessions, 3)
    with db_sessions.begin() as session:
        assert reads.board_report(session, 999) is None
        report = reads.board_report(session, 101)
        assert report is not None
        assert report.board == reads.game_rows(session, status="active")[0]
        assert [(m.number, m.player, m.notation) for m in report.moves] == [
            (1, "Alice", str(game.moves[0])),
            (2, "bob", str(game.moves[1])),
            (3, "Alice", str(game.moves[2])),
        ]
        assert report.position.to_text() == game.position.to_text()
        assert not report.cache_differs
        assert (report.blocked_rule, report.finished_at, report.rating_changes) == (
            "loss",
            None,
            None,
        )
        finished = reads.board_report(session, 102)
        assert finished is not None and finished.moves == ()
        # Rated: a draw between two 1600 players changes nothing, and says so.
        assert finished.rating_changes == reads.RatingChanges(white=0, black=0)
        assert finished.finished_at == NOW


def test_show_warns_when_the_cached_position_differs(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    game = _game_with_moves(db_sessions, 2)
    with db_sessions.begin() as session:
        start = reads.board_report(session, 102)
        assert start is not None
        session.execute(
            update(Board).where(Board.number == 101).values(position=start.position.to_text())
        )
    with db_sessions.begin() as session:
        report = reads.board_report(session, 101)
        assert report is not None and report.cache_differs
        assert report.position.to_text() == game.position.to_text()
    status, out, err = admin(capsys, database_url, "show", "101", "--json")
    assert status == 0 and "cached position differs" in err
    assert json.loads(out)["position"] == game.position.to_text()


def test_reports_players(db_sessions: sessionmaker[Session]) -> None:
    _game_with_moves(db_sessions, 2)
    with db_sessions.begin() as session:
        carol = create_player(session, "carol", "pw", ["c@example.org", "C2@example.org"], NOW)
        record_login_failure(
            session, carol.id, sender_key="c@example.org", previous=None, count=3,
            window_start=NOW, now=NOW,
            locked_until=NOW + timedelta(minutes=15),
        )  # fmt: skip
    with db_sessions.begin() as session:
        rows = [r for r in reads.player_rows(session) if r.userid not in ROBOTS]
        assert [r.userid for r in rows] == ["Alice", "bob", "carol"]
        alice = rows[0]
        assert (alice.rating, alice.provisional, alice.rated_games) == (1600, True, 1)
        assert (alice.won, alice.lost, alice.drawn, alice.active_boards) == (0, 0, 1, 1)
        assert alice.addresses == ("alice@example.org",)
        assert rows[2].addresses == ("c@example.org", "C2@example.org")
        assert rows[2].active_boards == 0

        assert reads.player_report(session, "nobody") is None
        bob = reads.player_report(session, "BOB")
        assert bob is not None
        assert bob.player == rows[1]
        assert bob.boards == tuple(reads.game_rows(session))
        assert bob.rating_history == (
            reads.RatingRow(board=102, before=1600, after=1600, at=NOW),
        )
        assert bob.login_failures is None
        carol_report = reads.player_report(session, "carol")
        assert carol_report is not None and carol_report.boards == ()
        assert carol_report.login_failures == reads.LoginFailureRow(
            count=3, window_start=NOW, locked_until=NOW + timedelta(minutes=15)
        )


def test_reports_mail(db_sessions: sessionmaker[Session]) -> None:
    later = NOW + timedelta(minutes=1)
    with db_sessions.begin() as session:
        assert reads.mail_rows(session) == []
        first, _ = inbox.enqueue_inbound(session, b"first", "", ["p@x"], "<1@x>", NOW)
        inbox.enqueue_inbound(session, b"second mail", "b@example.org", ["p@x"], "<2@x>", later)
        outbox.enqueue_outbound(
            session, "A@example.org", b"reply!", NOW, inbound_id=first.id, board_number=101
        )
    with db_sessions.begin() as session:
        rows = reads.mail_rows(session)
        assert [(r.label, r.time) for r in rows] == [
            ("in-1", NOW),
            ("out-1", NOW),
            ("in-2", later),
        ]
        in1, out1, in2 = rows
        assert (in1.address, in1.size, in1.status, in1.inbound_id) == ("", 5, "pending", None)
        assert (in2.size, in2.message_id) == (len(b"second mail"), "<2@x>")
        assert (out1.address, out1.size, out1.board, out1.inbound_id) == (
            "a@example.org",
            6,
            101,
            1,
        )
        assert out1.next_attempt_at == NOW and out1.sent_at is None
        assert reads.mail_rows(session, queues=("outbound",)) == [out1]
        assert reads.mail_rows(session, queues=("inbound",), limit=1) == [in2]
        assert reads.mail_rows(session, status="dead") == []

        assert reads.message_queues(session, 1) == ["inbound", "outbound"]
        assert reads.message_queues(session, 2) == ["inbound"]
        assert reads.message_queues(session, 3) == []
        assert reads.message_status(session, "inbound", 2) == "pending"
        assert reads.message_status(session, "outbound", 2) is None


def test_requeue_explains_what_it_does_not_requeue(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    with db_sessions.begin() as session:
        inbox.enqueue_inbound(session, b"x", "a@example.org", ["p@x"], "<1@x>", NOW)
    status, _, err = admin(capsys, database_url, "requeue", "1")
    assert status == 1 and "in-1 is pending: only dead mail is requeued" in err
    status, _, err = admin(capsys, database_url, "requeue", "message-1")
    assert status == 1 and "bad message id" in err
    status, _, err = admin(capsys, database_url, "requeue", "7")
    assert status == 1 and "message 7: no such message" in err


def test_the_admins_looks_take_no_write_lock(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    # A look at a busy server's database holds up none of its writers: only the commands
    # that change something open a transaction that may write.
    _game_with_moves(db_sessions, 2)
    looks = (["games"], ["show", "101"], ["players"], ["player", "alice"], ["mail"],
             ["standings"], ["events"], ["stats"])
    with write_transactions(Engine) as begun:  # every engine's
        for look in looks:
            status, _, err = admin(capsys, database_url, *look)
            assert status == 0, (look, err)
        assert begun == []
        status, _, _ = admin(capsys, database_url, "requeue", "out-1")
        assert begun == ["write transaction 1"]
