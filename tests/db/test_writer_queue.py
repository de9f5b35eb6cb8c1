"""SQLite writers take their turn in a queue (an flock beside the database) before BEGIN
IMMEDIATE, and let go of it whatever way their transaction ends."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import sessionmaker

from pbm_emergo.db.session import QueuedConnection, create_engine_for, read_sessions
from tests.support.waits import scaled


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = create_engine_for(f"sqlite:///{tmp_path / 'q.sqlite3'}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    yield engine
    engine.dispose()


def lock_file(tmp_path: Path) -> Path:
    return tmp_path / "q.sqlite3-writers"


def queue_is_free(path: Path) -> bool:
    """Whether another process could take the queue's flock now (asked from a new open file
    description, as another process would)."""
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)


def test_a_write_transaction_holds_the_queue_until_it_commits(
    engine: Engine, tmp_path: Path
) -> None:
    with engine.begin() as connection:
        assert isinstance(connection.connection.dbapi_connection, QueuedConnection)
        connection.execute(text("INSERT INTO t VALUES (1)"))
        assert not queue_is_free(lock_file(tmp_path))
    assert queue_is_free(lock_file(tmp_path))


def test_rollback_failed_begin_and_pool_reset_let_go(engine: Engine, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), engine.begin() as connection:
        connection.execute(text("INSERT INTO t VALUES (2)"))
        raise RuntimeError("the unit of work fails")
    assert queue_is_free(lock_file(tmp_path))
    # A connection given back to the pool in a transaction (its reset rolls back).
    connection = engine.connect()
    connection.execute(text("INSERT INTO t VALUES (3)"))
    assert not queue_is_free(lock_file(tmp_path))
    connection.close()
    assert queue_is_free(lock_file(tmp_path))
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM t")).scalar() == 0


def test_a_begin_that_fails_raises_sqlalchemys_error_and_lets_go(
    engine: Engine, tmp_path: Path
) -> None:
    # Another process's write lock, and no busy wait: BEGIN IMMEDIATE fails at once. The
    # BEGIN runs on the driver's connection, yet fails as any statement does (the callers
    # catch SQLAlchemy's errors), and the writers' queue is free again.
    holder = sqlite3.connect(tmp_path / "q.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with engine.connect() as connection:
            connection.connection.dbapi_connection.execute("PRAGMA busy_timeout = 0")
            with pytest.raises(OperationalError, match="database is locked"):
                connection.begin()
            assert queue_is_free(lock_file(tmp_path))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO t VALUES (5)"))


def test_readers_do_not_queue(engine: Engine, tmp_path: Path) -> None:
    reads = read_sessions(sessionmaker(engine))
    with engine.begin() as writer:
        writer.execute(text("INSERT INTO t VALUES (4)"))
        with reads() as session:  # would wait for ever if readers queued behind the writer
            assert session.execute(text("SELECT count(*) FROM t")).scalar() == 0


def test_another_process_waits_its_turn_and_then_writes(engine: Engine, tmp_path: Path) -> None:
    """A second process's write waits in the queue (not failing, not writing in between)
    and goes on once the first commits."""
    script = (
        "import sys\n"
        "from sqlalchemy import text\n"
        "from pbm_emergo.db.session import create_engine_for\n"
        "engine = create_engine_for(sys.argv[1])\n"
        "print('ready', flush=True)\n"
        "with engine.begin() as c:\n"
        "    n = c.execute(text('SELECT count(*) FROM t')).scalar()\n"
        "    c.execute(text('INSERT INTO t VALUES (:n)'), {'n': n + 100})\n"
        "print('wrote', n, flush=True)\n"
    )
    url = str(engine.url)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO t VALUES (5)"))
        child = subprocess.Popen(
            [sys.executable, "-c", script, url], stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        done = threading.Event()
        threading.Thread(target=lambda: (child.wait(), done.set()), daemon=True).start()
        # The child is waiting for its turn while this transaction is open.
        assert not done.wait(1.0)
    assert child.wait(scaled(30)) == 0
    # It read the committed row: it began after this transaction ended, not in between.
    with child.stdout:
        assert child.stdout.read().strip() == "wrote 1"
    with engine.connect() as connection:
        rows = sorted(connection.execute(text("SELECT x FROM t")).scalars())
    assert rows == [5, 101]
