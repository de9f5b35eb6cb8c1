"""A guard over every test that runs the server's code in its own process: nothing is
rendered, no password hashed or checked and nothing sent or awaited over the network while
a thread holds a write transaction open.

On SQLite a write transaction holds the database's one write lock, and on PostgreSQL its
row locks, from its first statement to its end; a thread that renders a template (Jinja's
``Template.render``: every reply, page and notice), runs argon2 or talks over a socket (a
relay, a mailbox; PostgreSQL's connections are libpq's, not Python's sockets) meanwhile
makes the other writers wait for it. The guard follows every engine's transactions
(SQLAlchemy's ``begin``, ``commit`` and ``rollback`` events; a reading session's are left
out) and watches those calls (it changes nothing they do), and fails the test at its end,
naming what was done and from where. It watches the server's write transactions: those
begun with code of the server outside ``db/`` on the stack (a test that sets up its data
in a transaction of its own, through ``db/`` alone, may hash the passwords it stores
there).
"""

from __future__ import annotations

import socket
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import jinja2
import pytest
from argon2 import PasswordHasher
from sqlalchemy import Connection, Engine, event

from pbm_emergo.db.session import READ_ONLY

_open = threading.local()  # this thread's write transactions: connection -> the server's?
_done_under_the_lock: list[str] = []
_PACKAGE = str(Path(__file__).resolve().parents[2] / "pbm_emergo")
_DB = str(Path(_PACKAGE) / "db")


def _transactions() -> dict[int, bool]:
    found: dict[int, bool] | None = getattr(_open, "transactions", None)
    if found is None:
        found = _open.transactions = {}
    return found


def _holding() -> bool:
    """Whether this thread holds a write transaction of the server's open."""
    return any(_transactions().values())


def _servers() -> bool:
    """Whether the transaction being begun is the server's (see the module docstring)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(_PACKAGE) and not name.startswith(_DB):
            return True
        frame = frame.f_back
    return False


def _began(connection: Connection) -> None:
    if not connection.get_execution_options().get(READ_ONLY):
        _transactions()[id(connection)] = _servers()


def _ended(connection: Connection) -> None:
    _transactions().pop(id(connection), None)


def _watched(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
    """``call``, recording ``name`` and our frames that led to it when it runs in a write
    transaction of the server's."""

    def run(*args: Any, **kwargs: Any) -> Any:
        if _holding():
            ours = [
                f"{Path(frame.filename).name}:{frame.lineno} {frame.name}"
                for frame in traceback.extract_stack()[:-1]
                if frame.filename.startswith(_PACKAGE)
            ]
            _done_under_the_lock.append(f"{name} from {' > '.join(ours[-6:])}")
        return call(*args, **kwargs)

    return run


@pytest.fixture(scope="session", autouse=True)
def _write_lock_watched() -> Iterator[None]:
    listeners = (("begin", _began), ("commit", _ended), ("rollback", _ended))
    for name, listener in listeners:
        event.listen(Engine, name, listener)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(
                jinja2.Template, "render", _watched("a template rendered", jinja2.Template.render)
            )
            patch.setattr(
                PasswordHasher, "hash", _watched("a password hashed", PasswordHasher.hash)
            )
            patch.setattr(
                PasswordHasher, "verify", _watched("a password checked", PasswordHasher.verify)
            )
            for call in ("connect", "send", "sendall", "recv"):
                patch.setattr(
                    socket.socket, call,
                    _watched(f"a socket's {call}", getattr(socket.socket, call)),
                )
            yield
    finally:
        for name, listener in listeners:
            event.remove(Engine, name, listener)


@pytest.fixture(autouse=True)
def nothing_rendered_hashed_or_sent_under_the_write_lock(
    _write_lock_watched: None,
) -> Iterator[None]:
    del _done_under_the_lock[:]
    yield
    found = list(_done_under_the_lock)
    del _done_under_the_lock[:]
    assert not found, "in a write transaction: " + "; ".join(found)
