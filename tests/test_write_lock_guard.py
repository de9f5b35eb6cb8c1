"""The guard of tests/support/write_lock.py sees a template rendered, a password hashed and
a socket used in a write transaction of the server's, and nothing done outside one, in a
reading session, or in a test's own set-up transaction."""

from __future__ import annotations

import socket
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.outbox import BuiltReply, LimitNotices
from pbm_emergo.app.runner import Runner
from pbm_emergo.config import Config
from pbm_emergo.db import players
from pbm_emergo.db.session import create_engine_for, read_sessions
from pbm_emergo.views.templating import render
from tests.support import write_lock

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = create_engine_for(f"sqlite:///{tmp_path / 'guarded.sqlite3'}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    yield engine
    engine.dispose()


def taken() -> list[str]:
    """What the guard saw so far in this test, taken from it (so that this test passes)."""
    found = list(write_lock._done_under_the_lock)
    del write_lock._done_under_the_lock[:]
    return found


class RenderingRunner(Runner):
    """A runner that renders and hashes in its write transaction, as none may."""

    def enqueue(
        self, session: Session, built: Sequence[BuiltReply], now: datetime,
        limit_notices: LimitNotices,
    ) -> int:
        session.execute(text("INSERT INTO t VALUES (1)"))  # the transaction's turn taken
        render("notice/reply_limit.txt.j2", limit=1, held_until="soon")
        players.hash_password("a secret")
        with socket.create_server(("127.0.0.1", 0)) as server, socket.socket() as client:
            client.connect(server.getsockname())
        return 0


def test_rendering_and_hashing_in_the_servers_write_transaction_are_seen(
    engine: Engine,
) -> None:
    runner = RenderingRunner(sessionmaker(engine), Config())
    built = runner.outbox.build_all([Reply("alice@example.org", "Emergo", "x\n")], NOW)
    runner.write((), built, NOW, {})
    found = taken()
    assert [what.partition(" from ")[0] for what in found] == [
        "a template rendered", "a password hashed", "a socket's connect",
    ]
    assert "runner.py" in found[0] and "templating.py" in found[0]
    assert "players.py" in found[1]


def test_a_tests_own_transaction_may_store_a_player_with_a_password(engine: Engine) -> None:
    # Set-up code that opens its own transaction and stores through db/ alone.
    with Session(engine) as session, session.begin():
        session.execute(text("INSERT INTO t VALUES (1)"))
        players.hash_password("a secret")
    assert taken() == []


def test_outside_a_write_transaction_nothing_is_seen(engine: Engine) -> None:
    render("notice/reply_limit.txt.j2", limit=1, held_until="soon")
    with sessionmaker(engine)() as session:  # the lock is let go with the transaction
        with session.begin():
            session.execute(text("INSERT INTO t VALUES (1)"))
        players.hash_password("a secret")
    with read_sessions(sessionmaker(engine))() as session:
        session.execute(text("SELECT x FROM t")).all()
        render("notice/reply_limit.txt.j2", limit=1, held_until="soon")
    assert taken() == []
