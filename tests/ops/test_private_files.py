"""The data is its owner's alone, whatever the umask: under a shared host's umask 022,
everything ``pbm-emergo serve``, ``pbm-emergo deliver`` and ``pbm-emergo admin backup``
create under the data folder (the folder itself, the SQLite database with its -wal and -shm,
the outbox maildir and the replies in it) and the backup are 0700 (folders) and 0600
(files), on SQLite and on PostgreSQL (where the data folder holds the outbox maildir)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbm_emergo.config import private_folder
from tests.ops.support import clean_env
from tests.support.mail import SERVER_ADDRESS, command_mail, send, wait_for
from tests.support.servers import processed, serving


@pytest.fixture
def shared_host_umask() -> Iterator[None]:
    """The umask of a shared host's login (022: new files readable by everyone)."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def modes(folder: Path) -> dict[str, int]:
    """Every folder and file under ``folder`` (and itself), by its path relative to it, with
    its permission bits."""
    found = {".": stat.S_IMODE(folder.stat().st_mode)}
    for path in folder.rglob("*"):
        found[str(path.relative_to(folder))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def open_to_others(found: dict[str, int], folder: Path) -> dict[str, str]:
    """Those of ``found`` that are not 0700 (a folder) or 0600 (a file)."""
    wrong = {}
    for name, mode in found.items():
        expected = 0o700 if (folder / name).is_dir() else 0o600
        if mode != expected:
            wrong[name] = f"{mode:o}, not {expected:o}"
    return wrong


def deliver(data_dir: Path, database_url: str | None, subject: str) -> None:
    """``pbm-emergo deliver`` of one mail, as Postfix's pipe or a .forward runs it."""
    args = ["--data-dir", str(data_dir), "--address", SERVER_ADDRESS,
            "--sender", "dave@example.org", "--recipient", SERVER_ADDRESS]
    if database_url is not None:
        args += ["--database-url", database_url]
    done = subprocess.run(
        [sys.executable, "-m", "pbm_emergo", "deliver", *args],
        input=command_mail(subject, sender="dave@example.org").as_bytes(),
        capture_output=True, env=clean_env(), timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
@pytest.mark.usefixtures("shared_host_umask")
@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql",
                                                            marks=pytest.mark.postgres)])
def test_what_serve_deliver_and_backup_create_is_private_under_umask_022(
    tmp_path: Path, request: pytest.FixtureRequest, backend: str
) -> None:
    database_url = (None if backend == "sqlite"
                    else request.getfixturevalue("postgres_database_url"))
    data_dir = tmp_path / "data"
    replies = data_dir / "outbox-maildir" / "new"
    with serving(data_dir, log=tmp_path / "serve.log", database_url=database_url) as server:
        send(server.port, command_mail("signup carol Kx-carol-Files9", sender="carol@example.org"))
        deliver(data_dir, database_url, "emergo help")
        wait_for(lambda: processed(server) == 2, timeout=60, interval=0.1)
        wait_for(lambda: replies.is_dir() and len(list(replies.iterdir())) == 2, timeout=60)
        running = modes(data_dir)
        if backend == "sqlite":
            assert {"pbm-emergo.sqlite3", "pbm-emergo.sqlite3-wal",
                    "pbm-emergo.sqlite3-shm"} <= set(running)
            backup = tmp_path / "backups" / "copy.sqlite3"
            done = subprocess.run(
                [sys.executable, "-m", "pbm_emergo", "admin", "backup", "--data-dir",
                 str(data_dir), "--parents", str(backup)],
                capture_output=True, env=clean_env(), timeout=120, check=False,
            )
            assert done.returncode == 0, done.stderr
            assert open_to_others(modes(backup.parent), backup.parent) == {}
    assert "outbox-maildir/new" in running
    assert open_to_others(running, data_dir) == {}
    assert open_to_others(modes(data_dir), data_dir) == {}


def test_a_data_folder_open_to_others_is_closed(
    tmp_path: Path, shared_host_umask: None
) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    assert private_folder(folder) == 0o755
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert private_folder(folder) is None
    assert private_folder(tmp_path / "new" / "data") is None
    assert stat.S_IMODE((tmp_path / "new" / "data").stat().st_mode) == 0o700
