"""What the write-lock guard watches, shared by the test process (``tests/support/write_lock.py``)
and every Python process a test starts (``sitecustomize.py`` beside this file).

A write transaction of the server's is one begun with code of the server outside ``db/``
on the stack (a test that sets up its data in a transaction of its own, through ``db/``
alone, may hash the passwords it stores there); a reading session's are left out. While a
thread holds one open, a Jinja ``Template.render``, an argon2 hash or check, or a socket's
``connect``, ``send``, ``sendall`` or ``recv`` is recorded, with our frames that led to it.

Standard library only, and imported only once a watched module loads: this module goes into
processes whose loaded modules tests look at.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

# What a recorded call is said to be, by the module and class it belongs to.
WATCHED: dict[str, tuple[tuple[str, str, str], ...]] = {
    "jinja2": (("Template", "render", "a template rendered"),),
    "argon2": (
        ("PasswordHasher", "hash", "a password hashed"),
        ("PasswordHasher", "verify", "a password checked"),
    ),
    "socket": tuple(
        ("socket", call, f"a socket's {call}") for call in ("connect", "send", "sendall", "recv")
    ),
}
READ_ONLY = "pbm_emergo_read_only"  # pbm_emergo.db.session.READ_ONLY (checked equal)

_state = threading.local()  # .transactions: this thread's write transactions of the server's
_where: list[tuple[str, str]] = []  # the server's folder and its db/, once found
_records: list[Callable[[str], None]] = []  # where what is found goes


def recording_to(record: Callable[[str], None]) -> None:
    """Send what is found to ``record`` from now on."""
    _records[:] = [record]


def _transactions() -> set[int]:
    found: set[int] | None = getattr(_state, "transactions", None)
    if found is None:
        found = _state.transactions = set()
    return found


def _package() -> tuple[str, str] | None:
    """The server's folder and its ``db/``, once the server is loaded."""
    if not _where:
        where = getattr(sys.modules.get("pbm_emergo"), "__file__", None)
        if where is None:
            return None
        folder = str(Path(where).resolve().parent)
        _where.append((folder, str(Path(folder) / "db")))
    return _where[0]


def _servers() -> bool:
    """Whether the transaction being begun is the server's (see the module docstring)."""
    package = _package()
    if package is None:
        return False
    ours, db = package
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(ours) and not name.startswith(db):
            return True
        frame = frame.f_back
    return False


def began(connection: Any) -> None:
    """SQLAlchemy's ``begin`` event."""
    if not connection.get_execution_options().get(READ_ONLY) and _servers():
        _transactions().add(id(connection))


def ended(connection: Any) -> None:
    """SQLAlchemy's ``commit`` and ``rollback`` events."""
    _transactions().discard(id(connection))


LISTENERS = (("begin", began), ("commit", ended), ("rollback", ended))


def watched(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
    """``call``, recording ``name`` and our frames that led to it when it runs in a write
    transaction of the server's."""

    def run(*args: Any, **kwargs: Any) -> Any:
        if _transactions():
            import traceback

            package = _package()
            ours = [
                f"{Path(frame.filename).name}:{frame.lineno} {frame.name}"
                for frame in traceback.extract_stack()[:-1]
                if package is not None and frame.filename.startswith(package[0])
            ]
            for record in _records:
                record(f"{name} from {' > '.join(ours[-6:])}")
        return call(*args, **kwargs)

    return run


def listen(module: Any) -> None:
    """Follow the transactions of every engine (``module``: sqlalchemy, once loaded)."""
    for name, listener in LISTENERS:
        module.event.listen(module.Engine, name, listener)


def patches(module: Any) -> list[tuple[type, str, Callable[..., Any]]]:
    """The watched stand-ins of the calls of ``module`` (one of WATCHED, once loaded): the
    class, the attribute and what to put there."""
    found = []
    for owner, attribute, name in WATCHED[module.__name__]:
        cls = getattr(module, owner)
        found.append((cls, attribute, watched(name, getattr(cls, attribute))))
    return found


def watch(module: Any) -> None:
    """Watch the calls of ``module`` (one of WATCHED, once loaded), for good."""
    for cls, attribute, stand_in in patches(module):
        setattr(cls, attribute, stand_in)
