"""`pbm-emergo admin backup` of a live SQLite database while the server runs and takes
mail, restored and read back; `pbm-emergo admin stats` (text, JSON, and with a running
server's counters)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db.backup import backup_sqlite
from pbm_emergo.db.session import create_engine_for, upgrade_to_head
from pbm_emergo.db.types import utcnow
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.database_metrics import metrics_endpoint
from pbm_emergo.ops.server import MailServer
from tests.support.mail import SERVER_ADDRESS, free_port

from . import games
from .support import pbm_emergo

FAST = Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1))


@pytest.fixture
def sqlite_server(
    tmp_path: Path, quick_argon2: None
) -> Iterator[tuple[MailServer, sessionmaker[Session]]]:
    data_dir = tmp_path / "data"
    config = Config(data_dir=data_dir, smtp_port=free_port(), address=SERVER_ADDRESS,
                    reply_limit=100_000)
    upgrade_to_head(config)
    engine = create_engine_for(config.effective_database_url)
    sessions = sessionmaker(engine, expire_on_commit=False)
    server = MailServer(config, sessions, backoff=FAST, poll_seconds=0.2)
    server.start()
    yield server, sessions
    server.stop()
    engine.dispose()


@pytest.mark.slow
def test_a_backup_taken_while_the_server_works_restores_every_game(
    sqlite_server: tuple[MailServer, sessionmaker[Session]], tmp_path: Path
) -> None:
    server, sessions = sqlite_server
    port = server.config.smtp_port
    matches = games.plan(4, 6, seed=3)
    games.set_up(port, sessions, matches)
    for m in matches:
        for n in range(1, 5):
            games.deliver(port, *games.move_mail(m, n))
    games.wait_processed(sessions)
    data = ["--data-dir", str(server.config.data_dir)]
    live = json.loads(pbm_emergo("admin", "games", "--json", *data).stdout)
    assert len(live) == 4 and all(g["move_count"] == 4 for g in live)

    # Mail keeps coming while the backup runs: the copy is one consistent snapshot.
    stop = threading.Event()

    def busy() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            games.deliver(port, "help", "p0w", f"<busy-{n}@ops.test>")

    flow = threading.Thread(target=busy)
    flow.start()
    try:
        backup = tmp_path / "backups" / "pbm.sqlite3"
        done = pbm_emergo("admin", "backup", str(backup), "--parents", *data)
        again = pbm_emergo("admin", "backup", str(backup), *data)
    finally:
        stop.set()
        flow.join()
    assert done.returncode == 0, done.stderr
    assert "quick_check ok" in done.stdout
    assert again.returncode == 1 and "exists" in again.stderr  # never overwritten unasked
    assert not list(backup.parent.glob(".*partial*"))

    # Restore: the copy as the data directory's database of a new installation.
    restored = tmp_path / "restored"
    restored.mkdir()
    shutil.copyfile(backup, restored / "pbm-emergo.sqlite3")
    args = ["--data-dir", str(restored)]
    assert json.loads(pbm_emergo("admin", "games", "--json", *args).stdout) == live
    for m in matches:
        shown = pbm_emergo("admin", "show", str(m.board), "--json", *args)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["moves"] == m.moves[:4]
    current = pbm_emergo("db", "current", *args)
    assert "up to date" in current.stdout


def test_the_backup_does_not_wait_for_a_writer(tmp_path: Path) -> None:
    """SQLite's online backup reads a snapshot: a transaction holding the write lock does not
    stop it, and what that transaction has not committed is not in the copy."""
    source = tmp_path / "live.sqlite3"
    upgrade_to_head(url=f"sqlite:///{source}")
    writer = sqlite3.connect(source, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO counters (name, value) VALUES ('uncommitted', 1)")
    try:
        backup_sqlite(source, tmp_path / "copy.sqlite3")
    finally:
        writer.execute("COMMIT")
        writer.close()
    copy = sqlite3.connect(tmp_path / "copy.sqlite3")
    try:
        names = [r[0] for r in copy.execute("SELECT name FROM counters")]
        journal = copy.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        copy.close()
    assert "uncommitted" not in names
    assert journal == "delete"


def test_backup_on_postgresql_says_pg_dump(tmp_path: Path) -> None:
    url = "postgresql+psycopg://pbm:secret@db.example.org:5432/pbm"
    done = pbm_emergo("admin", "backup", str(tmp_path / "x"), "--database-url", url)
    assert done.returncode == 1
    assert "pg_dump --format=custom" in done.stderr and "postgresql://pbm:***@" in done.stderr
    assert "secret" not in done.stderr


def test_stats_text_and_json(
    sqlite_server: tuple[MailServer, sessionmaker[Session]],
) -> None:
    server, sessions = sqlite_server
    port = server.config.smtp_port
    matches = games.plan(2, 3, seed=5)
    games.set_up(port, sessions, matches)
    games.deliver(port, *games.move_mail(matches[0], 1))
    games.wait_processed(sessions)
    endpoint = metrics_endpoint("127.0.0.1", 0, sessions, utcnow)
    endpoint.start()
    try:
        data = ["--data-dir", str(server.config.data_dir)]
        text = pbm_emergo("admin", "stats", *data)
        as_json = pbm_emergo("admin", "stats", "--json", *data, "--metrics-url",
                             f"http://127.0.0.1:{endpoint.port}/metrics")
    finally:
        endpoint.stop()
    assert text.returncode == 0, text.stderr
    assert "boards     active 2" in text.stdout
    assert "inbound    pending 0, processing 0" in text.stdout
    figures = json.loads(as_json.stdout)
    assert figures["queues"]["active_boards"] == 2
    assert figures["queues"]["inbound_pending"] == 0
    # 4 signups, their 4 confirms, 2 challenges, 1 move.
    assert figures["inbound"] == {"done": 4 + 4 + 2 + 1}
    assert figures["boards"] == {"active": 2}
    assert figures["last_hour"]["processed"] == 11
    assert figures["last_hour"]["receipt_to_done_ms_p50"] > 0
    counters = figures["server"]
    assert counters["commands"]["emergo move"]["results"]["done"] >= 1
    assert counters["commands"]["signup"]["results"]["done"] >= 4
    assert counters["accepted"] >= 11


def test_stats_on_an_unmigrated_database_says_so(tmp_path: Path) -> None:
    done = pbm_emergo("admin", "stats", "--database-url", f"sqlite:///{tmp_path / 'x.sqlite3'}")
    assert done.returncode == 1 and "migrated" in done.stderr


