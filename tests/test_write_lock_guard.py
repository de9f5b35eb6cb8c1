"""The guard of tests/support/write_lock.py sees a template rendered, a password hashed and
a socket used in a write transaction of the server's, on both backends, in the test's
process and in a process the test starts, and nothing done outside one, in a reading
session, or in a test's own set-up transaction; in a started process it loads nothing
ahead."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.outbox import BuiltReply, LimitNotices
from pbm_emergo.app.runner import Runner
from pbm_emergo.config import Config
from pbm_emergo.db import players
from pbm_emergo.db.session import read_sessions
from pbm_emergo.views.templating import render
from tests.support import write_lock
from tests.support.waits import scaled

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[1]


def taken() -> list[str]:
    """What the guard saw so far in this test, taken from it (so that this test passes)."""
    found = list(write_lock._done_under_the_lock)
    del write_lock._done_under_the_lock[:]
    return found


def forbidden() -> None:
    """What no write transaction of the server's may do."""
    render("notice/reply_limit.txt.j2", limit=1, held_until="soon")
    players.hash_password("a secret")
    with socket.create_server(("127.0.0.1", 0)) as server, socket.socket() as client:
        client.connect(server.getsockname())


class ForbiddenRunner(Runner):
    """A runner that does in its write transaction what none may."""

    def enqueue(
        self, session: Session, built: Sequence[BuiltReply], now: datetime,
        limit_notices: LimitNotices,
    ) -> int:
        session.execute(text("SELECT 1"))  # the transaction begun
        forbidden()
        return 0


def test_what_the_servers_write_transaction_may_not_do_is_seen(
    db_sessions: sessionmaker[Session],
) -> None:
    runner = ForbiddenRunner(db_sessions, Config())
    built = runner.outbox.build_all([Reply("alice@example.org", "Emergo", "x\n")], NOW)
    runner.write((), built, NOW, {})
    found = taken()
    assert [what.partition(" from ")[0] for what in found] == [
        "a template rendered", "a password hashed", "a socket's connect",
    ]
    assert "runner.py" in found[0] and "templating.py" in found[0]
    assert "players.py" in found[1]
    # Once it ended, the same calls are nobody's business.
    forbidden()
    assert taken() == []


def test_a_tests_own_transaction_may_store_a_player_with_a_password(
    db_sessions: sessionmaker[Session],
) -> None:
    # Set-up code that opens its own transaction and stores through db/ alone.
    with db_sessions.begin() as session:
        session.execute(text("SELECT 1"))
        players.hash_password("a secret")
    assert taken() == []


def test_a_reading_session_may_render(db_sessions: sessionmaker[Session]) -> None:
    with read_sessions(db_sessions)() as session:
        session.execute(text("SELECT 1")).all()
        forbidden()
    assert taken() == []


_IN_A_STARTED_PROCESS = """
import sys
from sqlalchemy.orm import sessionmaker
from pbm_emergo.app.messages import Reply
from pbm_emergo.config import Config
from pbm_emergo.db.session import create_engine_for, read_sessions
from tests.test_write_lock_guard import NOW, ForbiddenRunner, forbidden

sessions = sessionmaker(create_engine_for(sys.argv[1]), expire_on_commit=False)
with read_sessions(sessions)() as session:
    forbidden()  # not in a write transaction: nothing to say
runner = ForbiddenRunner(sessions, Config())
built = runner.outbox.build_all([Reply("alice@example.org", "Emergo", "x\\n")], NOW)
runner.write((), built, NOW, {})
"""


def test_a_process_the_test_starts_is_watched_too(
    request: pytest.FixtureRequest, database_url: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _IN_A_STARTED_PROCESS, database_url],
        cwd=ROOT, capture_output=True, text=True, timeout=scaled(120), check=False,
    )
    assert done.returncode == 0, done.stderr
    found = write_lock.logged(request.config)
    assert [what.partition(": ")[2].partition(" from ")[0] for what in found] == [
        "a template rendered", "a password hashed", "a socket's connect",
    ]
    assert all(what.startswith("pid ") and "runner.py" in what for what in found)


def test_the_watch_of_a_started_process_loads_nothing_ahead() -> None:
    code = (
        "import sys\n"
        "print(sorted({'sqlalchemy', 'jinja2', 'argon2', 'write_lock_watch'} & set(sys.modules)))\n"
        "import jinja2\n"
        "print(jinja2.Template.render.__qualname__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=scaled(60),
        check=True,
    )
    assert done.stdout.splitlines() == ["[]", "watched.<locals>.run"]


def test_a_sitecustomize_of_the_pythons_own_still_runs(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text("import builtins\nbuiltins.SHADOWED = True\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(write_lock.GUARDED), str(tmp_path)))}
    done = subprocess.run(
        [sys.executable, "-c", "import builtins, sitecustomize\n"
         "print(getattr(builtins, 'SHADOWED', False), sitecustomize.__file__)"],
        capture_output=True, text=True, timeout=scaled(60), check=True, env=env,
    )
    assert done.stdout.split() == ["True", str(write_lock.GUARDED / "sitecustomize.py")]
