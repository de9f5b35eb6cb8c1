"""The verified-credential cache: what it remembers, for how long, and the cache the worker
processes of one machine share (a private folder in memory, no process between them)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pbm_emergo.config import Config
from pbm_emergo.db import credentials, players
from pbm_emergo.db.credentials import (
    CredentialCache,
    SharedEntries,
    machine_cache,
    private_folder,
)

URL = "postgresql+psycopg://pbm@db.example/pbm"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_remembered_password_passes_until_it_expires_or_the_hash_changes() -> None:
    clock = Clock()
    cache = CredentialCache(ttl=60, clock=clock)
    cache.remember(7, "hash-1", "right-pw")
    assert cache.check(7, "hash-1", "right-pw")
    assert not cache.check(7, "hash-1", "wrong-pw")
    assert not cache.check(8, "hash-1", "right-pw")
    assert not cache.check(7, "hash-2", "right-pw")  # the password was changed since
    clock.now += 61
    assert not cache.check(7, "hash-1", "right-pw")


def test_with_no_time_to_live_nothing_is_remembered() -> None:
    cache = CredentialCache(ttl=0)
    cache.remember(7, "hash-1", "right-pw")
    assert len(cache) == 0
    assert not cache.check(7, "hash-1", "right-pw")


def test_the_processes_of_a_machine_share_one_cache(tmp_path: Path) -> None:
    here = machine_cache(URL, ttl=3600, root=tmp_path)
    assert here is not None
    # Another process (as a worker process is) remembers a password; this one knows it.
    code = (
        "import sys; from pathlib import Path; from pbm_emergo.db import credentials; "
        "cache = credentials.machine_cache(sys.argv[1], ttl=3600, root=Path(sys.argv[2])); "
        "cache.remember(7, 'hash-1', 'right-pw')"
    )
    subprocess.run([sys.executable, "-c", code, URL, str(tmp_path)], check=True, timeout=60)
    assert here.check(7, "hash-1", "right-pw")
    assert not here.check(7, "hash-1", "wrong-pw")
    here.forget(7)
    assert not machine_cache(URL, ttl=3600, root=tmp_path).check(  # type: ignore[union-attr]
        7, "hash-1", "right-pw"
    )
    # Another database has a cache of its own.
    other = machine_cache(URL + "2", ttl=3600, root=tmp_path)
    here.remember(9, "hash-9", "pw-9")
    assert other is not None and not other.check(9, "hash-9", "pw-9")
    folders = sorted(p.name for p in (tmp_path / f"pbm-emergo-{os.getuid()}").iterdir())
    assert len(folders) == 2 and all(f.startswith("credentials-") for f in folders)
    # Nothing of the password is in the folder; its key is the server's user's alone.
    for path in tmp_path.rglob("*"):
        assert path.is_dir() or b"pw-9" not in path.read_bytes()
        if path.name == "key":
            assert path.stat().st_mode & 0o077 == 0


def test_a_folder_open_to_others_or_a_link_is_refused(tmp_path: Path) -> None:
    open_folder = tmp_path / "open"
    open_folder.mkdir(mode=0o755)
    open_folder.chmod(0o755)
    with pytest.raises(OSError, match="not a private folder"):
        private_folder(open_folder)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(elsewhere)
    with pytest.raises(OSError, match="not a private folder"):
        private_folder(tmp_path / "link")
    assert private_folder(tmp_path / "mine").stat().st_mode & 0o777 == 0o700


def test_no_shared_cache_without_the_memory_folder(tmp_path: Path) -> None:
    assert credentials.machine_cache(URL, ttl=3600, root=tmp_path / "missing") is None


def test_the_settings_choose_the_machines_cache_or_one_of_the_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(credentials, "_cache", credentials.cache())
    monkeypatch.setattr(players, "_hasher", players._hasher)
    monkeypatch.setattr(credentials, "MEMORY_ROOT", tmp_path)
    players.use_password_settings(Config(database_url=URL))
    shared = credentials.cache()
    assert isinstance(shared._entries, SharedEntries)  # even while it is still empty
    shared.remember(3, "hash-3", "pw-3")
    players.use_password_settings(Config(database_url=URL))
    assert credentials.cache().check(3, "hash-3", "pw-3")  # the same cache, opened again
    players.use_password_settings(Config(database_url=URL, credential_cache_shared="no"))
    assert not credentials.cache().check(3, "hash-3", "pw-3")
    assert not isinstance(credentials.cache()._entries, SharedEntries)
    players.use_password_settings(Config(database_url=URL, credential_cache_seconds=0))
    credentials.cache().remember(3, "hash-3", "pw-3")
    assert len(credentials.cache()) == 0


def test_a_cache_that_fails_never_fails_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import diskcache  # type: ignore[import-untyped]

    cache = machine_cache(URL, ttl=3600, root=tmp_path)
    assert cache is not None
    cache.remember(7, "hash-1", "right-pw")

    def broken(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    # /dev/shm full, say: reading says "not known" (the password is hashed instead),
    # writing and dropping remember nothing; each is logged, none raises.
    monkeypatch.setattr(diskcache.Cache, "get", broken)
    monkeypatch.setattr(diskcache.Cache, "set", broken)
    monkeypatch.setattr(diskcache.Cache, "delete", broken)
    assert not cache.check(7, "hash-1", "right-pw")
    cache.remember(8, "hash-8", "pw-8")
    cache.forget(7)
    assert list(dict.fromkeys(r.getMessage().split(" (")[0] for r in caplog.records)) == [
        "the credential cache could not be read",
        "the credential cache could not be written",
        "the credential cache could not drop an entry",
    ]
    monkeypatch.undo()
    assert cache.check(7, "hash-1", "right-pw") and not cache.check(8, "hash-8", "pw-8")


def test_a_memory_folder_open_to_others_leaves_each_process_its_own_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(credentials, "_cache", credentials.cache())
    monkeypatch.setattr(players, "_hasher", players._hasher)
    monkeypatch.setattr(credentials, "MEMORY_ROOT", tmp_path)
    (tmp_path / f"pbm-emergo-{os.getuid()}").mkdir(mode=0o777)
    (tmp_path / f"pbm-emergo-{os.getuid()}").chmod(0o777)
    players.use_password_settings(Config(database_url=URL))
    assert not isinstance(credentials.cache()._entries, SharedEntries)
    credentials.cache().remember(3, "hash-3", "pw-3")
    assert credentials.cache().check(3, "hash-3", "pw-3")
    assert "no credential cache shared by this machine's processes" in caplog.text
