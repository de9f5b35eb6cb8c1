"""A copy of a live SQLite database with SQLite's online backup API (what
``pbm-emergo admin backup`` takes): one consistent snapshot, checked, one plain file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from pbm_emergo.config import create_private_file

BUSY_TIMEOUT_MS = 10_000


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy the SQLite database ``source`` to ``target`` with the online backup API, as one
    consistent snapshot, while other connections read and write; returns the page count.
    The copy is written next to ``target`` and renamed when complete and checked."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    partial.unlink(missing_ok=True)
    # The copy holds what the database holds: its owner's alone, whatever the umask.
    create_private_file(partial)
    src = sqlite3.connect(source, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        src.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        dst = sqlite3.connect(partial)
        try:
            # All pages in one step: one read transaction, so one snapshot. In WAL mode a
            # reader does not hold up the server's writers, nor they it.
            src.backup(dst, pages=-1)
            check = dst.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"the copy failed its check: {check}")
            dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            pages = int(dst.execute("PRAGMA page_count").fetchone()[0])
        finally:
            dst.close()
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        src.close()
    os.replace(partial, target)
    return pages
