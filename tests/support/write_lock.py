"""A guard over every test that runs the server's code in its own process: nothing is
rendered, no password hashed or checked and nothing sent or awaited over the network while
a thread holds the write lock.

The write transactions of SQLite take their turn in a
:class:`~pbm_emergo.db.session.WriterQueue` first; a thread that renders a template (Jinja's
``Template.render``: every reply, page and notice), runs argon2 or talks over a socket
(a relay, a mailbox; PostgreSQL's connections are libpq's, not Python's sockets) while it
holds that turn makes every other writer wait for it. The guard watches the queue's turns
and those calls (it changes nothing they do) and fails the test at its end, naming what was
done and from where. It watches the server's write transactions: those whose turn is taken with
code of the server outside ``db/`` on the stack (a test that sets up its data in a
transaction of its own, through ``db/`` alone, may hash the passwords it stores there). It
sees SQLite's write transactions only (PostgreSQL has no such queue): every database test
runs on both, and its SQLite run is the one that is watched.
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

from pbm_emergo.db.session import WriterQueue

_turns = threading.local()
_done_under_the_lock: list[str] = []
_PACKAGE = str(Path(__file__).resolve().parents[2] / "pbm_emergo")
_DB = str(Path(_PACKAGE) / "db")


def _holding() -> bool:
    """Whether this thread holds the turn of a write transaction of the server's."""
    return any(getattr(_turns, "watched", ()))


def _servers() -> bool:
    """Whether the turn being taken is for the server's code (see the module docstring)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(_PACKAGE) and not name.startswith(_DB):
            return True
        frame = frame.f_back
    return False


def _watched(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
    """``call``, recording ``name`` and our frames that led to it when it runs under the
    write lock."""

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
    acquire, release = WriterQueue.acquire, WriterQueue.release

    def acquired(queue: WriterQueue) -> None:
        acquire(queue)
        _turns.__dict__.setdefault("watched", []).append(_servers())

    def released(queue: WriterQueue) -> None:
        _turns.__dict__.setdefault("watched", []).pop()
        release(queue)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(WriterQueue, "acquire", acquired)
        patch.setattr(WriterQueue, "release", released)
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
                socket.socket, call, _watched(f"a socket's {call}", getattr(socket.socket, call))
            )
        yield


@pytest.fixture(autouse=True)
def nothing_rendered_hashed_or_sent_under_the_write_lock(
    _write_lock_watched: None,
) -> Iterator[None]:
    del _done_under_the_lock[:]
    yield
    found = list(_done_under_the_lock)
    del _done_under_the_lock[:]
    assert not found, "under the write lock: " + "; ".join(found)
