"""SQLite's WAL is checkpointed by a thread of each writing process, never inside a commit
(where it held up every other writer for an fsync while the committer kept its turn)."""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from pbm_emergo.db.session import checkpoint, create_engine_for

PAGE_FILLER = b"x" * 200_000  # about 50 pages a row


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "c.sqlite3"


@pytest.fixture
def engine(database: Path) -> Iterator[Engine]:
    engine = create_engine_for(f"sqlite:///{database}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (n INTEGER, filler BLOB)")
    checkpoint(str(database))  # the table itself is in the database file
    yield engine
    engine.dispose()


def rows_in_database_file(database: Path, tmp_path: Path) -> int:
    """The rows a reader finds in the database file alone, without its WAL: those that
    have been checkpointed."""
    copy = tmp_path / f"copy-{time.monotonic_ns()}.sqlite3"
    shutil.copyfile(database, copy)
    connection = sqlite3.connect(copy)
    try:
        return int(connection.execute("SELECT count(*) FROM t").fetchone()[0])
    finally:
        connection.close()


def write_rows(engine: Engine, count: int) -> None:
    for n in range(count):
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO t VALUES (:n, :filler)"),
                               {"n": n, "filler": PAGE_FILLER})


def test_commits_leave_the_checkpoint_to_the_checkpointer(
    engine: Engine, database: Path, tmp_path: Path
) -> None:
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
    # 30 commits, about 1,500 pages: SQLite's own setting would have checkpointed in the
    # commit that crossed 1,000.
    write_rows(engine, 30)
    busy, logged, copied = checkpoint(str(database))
    assert busy == 0 and logged > 1000 and copied == logged
    assert rows_in_database_file(database, tmp_path) == 30


def test_the_checkpointer_thread_copies_what_was_committed(
    engine: Engine, database: Path, tmp_path: Path
) -> None:
    write_rows(engine, 3)
    deadline = time.monotonic() + 15
    while rows_in_database_file(database, tmp_path) != 3:
        assert time.monotonic() < deadline, "no checkpoint within 15 s"
        time.sleep(0.1)
    assert "wal-checkpoint" in {t.name for t in threading.enumerate()}


def test_a_checkpoint_does_not_wait_for_a_writer(
    engine: Engine, database: Path, tmp_path: Path
) -> None:
    write_rows(engine, 2)
    writing, done = threading.Event(), threading.Event()

    def writer() -> None:
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO t VALUES (99, NULL)"))
            writing.set()
            done.wait(20)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert writing.wait(10)
        started = time.monotonic()
        busy, logged, copied = checkpoint(str(database))
        assert time.monotonic() - started < 5
        assert busy == 0 and copied == logged
        # The committed rows are in the database file; the open transaction's are not.
        assert rows_in_database_file(database, tmp_path) == 2
    finally:
        done.set()
        thread.join(20)
