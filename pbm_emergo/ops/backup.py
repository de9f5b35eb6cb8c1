"""``pbm-emergo admin backup PATH``: a copy of a live SQLite database, taken with SQLite's
online backup API while the server runs. The copy is one consistent snapshot (WAL: the
server's writers go on meanwhile), checked (``PRAGMA quick_check``) and made a plain single
file before it is renamed to PATH. On PostgreSQL it says to use ``pg_dump``.

PATH's folder must exist (``--parents`` creates it): a mistyped folder is an error, not a
new folder that the next backup job does not look in.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from sqlalchemy.engine import make_url

from pbm_emergo.config import Config
from pbm_emergo.db.backup import backup_sqlite


class BackupError(Exception):
    """No backup was taken (the message says why, in one line)."""


def backup_database(
    config: Config, path: str, *, force: bool = False, parents: bool = False
) -> str:
    """Copy ``config``'s SQLite database to ``path``; the line that says what was copied.
    ``parents``: create ``path``'s folder if it is missing."""
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
    folder = target.parent
    if not folder.is_dir():
        if folder.exists():
            raise BackupError(f"{folder} is not a folder")
        if not parents:
            raise BackupError(
                f"the folder {folder} does not exist: check the path, or add --parents "
                "to create it"
            )
        try:
            folder.mkdir(parents=True)
        except OSError as err:
            raise BackupError(f"could not create the folder {folder}: {err}") from None
    try:
        started = time.monotonic()
        pages = backup_sqlite(Path(source), target)
    except (sqlite3.Error, OSError) as err:
        raise BackupError(f"backup failed: {err}") from None
    return (f"{source} -> {target}: {pages} pages, {target.stat().st_size} bytes in "
            f"{time.monotonic() - started:.2f} s (quick_check ok)")


__all__ = ["BackupError", "backup_database"]
