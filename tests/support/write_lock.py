"""A guard over every test: nothing is rendered, no password hashed or checked and nothing
sent or awaited over the network while a thread of the server's holds a write transaction
open, in the test's own process or in any Python process it starts.

On SQLite a write transaction holds the database's one write lock, and on PostgreSQL its
row locks, from its first statement to its end; a thread that renders a template (Jinja's
``Template.render``: every reply, page and notice), runs argon2 or talks over a socket (a
relay, a mailbox; PostgreSQL's connections are libpq's, not Python's sockets) meanwhile
makes the other writers wait for it. What is watched, and whose transactions count, is
``guarded/write_lock_watch.py``; it changes nothing the calls do. In the test's process the
calls are watched for the session; the processes a test starts (``serve`` and its forked
helpers, ``pbm-emergo worker``, ``deliver`` ...) load ``guarded/sitecustomize.py`` (the
folder is put on ``PYTHONPATH``), which watches them and appends what it finds to a log of
this process's (``WRITE_LOCK_GUARD_LOG``). A test fails at its end on anything found in
either while it ran, naming what was done and from where.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy

from pbm_emergo.db.session import READ_ONLY
from tests.support.guarded import write_lock_watch

GUARDED = Path(__file__).resolve().parent / "guarded"
LOG_VARIABLE = "WRITE_LOCK_GUARD_LOG"
_done_under_the_lock: list[str] = []  # found in this process
_log = pytest.StashKey[Path]()  # found in the processes the tests start
_read = pytest.StashKey[int]()  # how much of that log the running test has been held to

# The watch keeps its own copy of the name, to load nothing of the server's.
assert write_lock_watch.READ_ONLY == READ_ONLY


def pytest_configure(config: pytest.Config) -> None:
    """Have every Python process the tests start watched, logging to a file of ours.
    Under pytest-xdist the workers do it, each for its own tests; the process that only
    hands tests out to them does not (its workers would load the guard twice)."""
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        return
    log = Path(tempfile.mkdtemp(prefix="write-lock-guard-")) / "found"
    log.touch()
    config.stash[_log] = log
    os.environ[LOG_VARIABLE] = str(log)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, (str(GUARDED), os.environ.get("PYTHONPATH")))
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    log = config.stash.get(_log, None)
    if log is not None:
        shutil.rmtree(log.parent, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _write_lock_watched() -> Iterator[None]:
    write_lock_watch.recording_to(_done_under_the_lock.append)
    for name, listener in write_lock_watch.LISTENERS:
        sqlalchemy.event.listen(sqlalchemy.Engine, name, listener)
    try:
        with pytest.MonkeyPatch.context() as patch:
            for name in write_lock_watch.WATCHED:
                for cls, attribute, stand_in in write_lock_watch.patches(
                    importlib.import_module(name)
                ):
                    patch.setattr(cls, attribute, stand_in)
            yield
    finally:
        for name, listener in write_lock_watch.LISTENERS:
            sqlalchemy.event.remove(sqlalchemy.Engine, name, listener)


def logged(config: pytest.Config) -> list[str]:
    """What the processes started since the test began (or since the last call) found,
    taken from the log (the guard's own test takes what it provoked)."""
    log = config.stash.get(_log, None)
    if log is None:
        return []
    with log.open("rb") as found:
        found.seek(config.stash.get(_read, 0))
        text = found.read()
        config.stash[_read] = found.tell()
    return text.decode(errors="replace").splitlines()


@pytest.fixture(autouse=True)
def nothing_rendered_hashed_or_sent_under_the_write_lock(
    request: pytest.FixtureRequest, _write_lock_watched: None
) -> Iterator[None]:
    log = request.config.stash.get(_log, None)
    if log is not None:
        request.config.stash[_read] = log.stat().st_size
    del _done_under_the_lock[:]
    yield
    found = list(_done_under_the_lock) + logged(request.config)
    del _done_under_the_lock[:]
    assert not found, "in a write transaction: " + "; ".join(found)
