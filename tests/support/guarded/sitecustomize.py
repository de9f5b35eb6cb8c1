"""Loaded by every Python process a test starts (the test session puts this folder on
``PYTHONPATH``): when ``WRITE_LOCK_GUARD_LOG`` names a file, the write-lock guard
of ``write_lock_watch.py`` watches this process too (``serve`` and the helpers it forks,
``pbm-emergo worker``, ``deliver``, ``admin`` ...) and appends what it finds to that file,
a line each, at once (a helper may be killed rather than stopped).

Nothing is loaded for it ahead: SQLAlchemy, Jinja, argon2 and the socket module are
watched when the process loads them, so that what a process loads stays its own. A
``sitecustomize`` of the Python's own, which this one stands in front of, still runs.
"""

from __future__ import annotations

import os
import sys
from typing import Any

_LOG = os.environ.get("WRITE_LOCK_GUARD_LOG")


def _append(found: str) -> None:
    line = f"pid {os.getpid()} ({' '.join(sys.argv)[:120]}): {found}\n"
    try:
        fd = os.open(_LOG or os.devnull, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError:  # a process of another user's: its output is what the test reads
        sys.stderr.write(f"write-lock guard: {line}")
        return
    try:
        os.write(fd, line.encode(errors="replace"))
    finally:
        os.close(fd)


def _watch(name: str, module: Any) -> None:
    import write_lock_watch

    write_lock_watch.recording_to(_append)
    if name == "sqlalchemy":
        write_lock_watch.listen(module)
    else:
        write_lock_watch.watch(module)


class _WatchOnLoad:
    """A finder that finds nothing itself: it lets the others find a watched module and
    watches the module once it has run."""

    def __init__(self, names: set[str]) -> None:
        self.waiting = names

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in self.waiting:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run = getattr(loader, "exec_module", None)
        if run is None or isinstance(loader, type):  # a built-in one is a class: left alone
            return spec
        self.waiting.discard(fullname)

        def exec_module(module: Any) -> None:
            run(module)
            _watch(fullname, module)

        loader.exec_module = exec_module
        return spec


def _shadowed() -> None:
    """Run the ``sitecustomize`` this one stands in front of, if the Python has one (a
    distribution's), as it would run without the guard."""
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    for folder in sys.path:
        where = os.path.abspath(folder or os.curdir)
        path = os.path.join(where, "sitecustomize.py")
        if where != here and os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("sitecustomize", path)
            if spec is not None and spec.loader is not None:
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
            return


_shadowed()
if _LOG:
    _waiting = {"sqlalchemy", "jinja2", "argon2", "socket"}
    for _name in sorted(_waiting):
        if _name in sys.modules:
            _watch(_name, sys.modules[_name])
    sys.meta_path.insert(0, _WatchOnLoad(_waiting - set(sys.modules)))
