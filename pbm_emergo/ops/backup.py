"""``pbm-emergo admin backup PATH``: a copy of a live SQLite database, taken with SQLite's
online backup API while the server runs. The copy is one consistent snapshot (WAL: the
server's writers go on meanwhile), checked (``PRAGMA quick_check``) and made a plain single
file before it is renamed to PATH. On PostgreSQL it says to use ``pg_dump``.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from sqlalchemy.engine import make_url

from pbm_emergo.config import Config

BUSY_TIMEOUT_MS = 10_000


class BackupError(Exception):
    """No backup was taken (the message says why, in one line)."""


def backup_database(config: Config, path: str, *, force: bool = False) -> str:
    """Copy ``config``'s SQLite database to ``path``; the line that says what was copied."""
    url = make_url(config.effective_database_url)
    if url.get_backend_name() != "sqlite":
        plain = url.set(drivername="postgresql").render_as_string(hide_password=True)
        raise BackupError(
            "this is PostgreSQL: back it up with pg_dump, which takes a consistent snapshot "
            f"while the server runs: pg_dump --format=custom --file={path} '{plain}' "
            "(restore: pg_restore --dbname=... FILE)"
        )
    source = url.database
    if not source or source == ":memory:" or not Path(source).exists():
        raise BackupError(f"no SQLite database at {source}")
    target = Path(path)
    if target.exists() and not force:
        raise BackupError(f"{target} exists (--force replaces it)")
    try:
        started = time.monotonic()
        pages = backup_sqlite(Path(source), target)
    except (sqlite3.Error, OSError) as err:
        raise BackupError(f"backup failed: {err}") from None
    return (f"{source} -> {target}: {pages} pages, {target.stat().st_size} bytes in "
            f"{time.monotonic() - started:.2f} s (quick_check ok)")


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy the SQLite database ``source`` to ``target`` with the online backup API, as one
    consistent snapshot, while other connections read and write; returns the page count.
    The copy is written next to ``target`` and renamed when complete and checked."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    partial.unlink(missing_ok=True)
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


__all__ = ["BackupError", "backup_database", "backup_sqlite"]
