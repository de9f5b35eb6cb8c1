"""``pbm-emergo db`` and ``pbm-emergo admin`` against real databases (both backends)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.cli import main
from pbm_emergo.db import queues, service
from pbm_emergo.db.session import PROJECT_ROOT
from pbm_emergo.rules import Game, render_board

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
        alice = service.create_player(session, "Alice", "pw", ["alice@example.org"], NOW)
        bob = service.create_player(session, "bob", "pw", ["bob@example.org"], NOW)
        board = service.create_board(session, alice, bob, NOW)
        for ply in range(n):
            move = game.position.legal_moves()[0]
            game.play(move)
            mover = service.player_to_move(board)
            assert mover is not None
            service.apply_move(session, board, ply, str(move), mover, None, NOW)
        other = service.create_board(session, bob, alice, NOW)
        service.finish_board(session, other, None, "draw agreed", NOW)
    return game


@pytest.mark.parametrize("command", ["games", "players", "mail"])
def test_json_lists_on_an_empty_database(
    capsys: pytest.CaptureFixture[str], database_url: str, command: str
) -> None:
    status, out, err = admin(capsys, database_url, command, "--json")
    assert (status, err) == (0, "")
    assert json.loads(out) == []


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
    players = json.loads(out)
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
        inbound, _ = queues.enqueue_inbound(session, b"x", "a@example.org", ["p@x"], "<1@x>", NOW)
        inbound.status, inbound.attempts, inbound.last_error = "dead", 5, "ValueError: boom"
        queues.enqueue_outbound(session, "a@example.org", b"reply", NOW, inbound_id=inbound.id)
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
