"""The verified-credential cache: a slow password hash paid once per player and hour.

Every command that changes something carries its player's password, and checking it against
the stored argon2id hash takes a tenth of a second or more (that is the point of argon2).
Like Dovecot's auth cache, after a successful check the process remembers, for a bounded
time and a bounded number of players, a keyed hash of the password (HMAC-SHA256 under a
random key made at start and never written anywhere) together with the stored hash it was
checked against. A later command with the same password is then compared in constant time
against the remembered HMAC, in microseconds.

What keeps this safe:

- the password itself is never kept; the HMAC key lives only in memory, so a memory dump
  gives an attacker a keyed hash, not the password, and nothing is on disk;
- an entry counts only while the player's stored hash is still the one it was checked
  against: a password change (any process, any machine) makes it worthless at once, and
  changing the password or locking the player out also drops the entry here;
- a wrong password is never remembered (there is no negative cache: wrong passwords always
  pay the full argon2 price, which is what slows down guessing);
- entries expire (default one hour) and the cache holds at most ``max_entries`` players.

The trade-off: for up to an hour after a player's last successful command, someone who can
read this process's memory could test guesses against the HMAC quickly instead of against
argon2. Someone who can read the server's memory can also read passwords as they arrive, so
this adds little. README.md ("Passwords") says the same for operators.

The worker processes of one machine share their cache (:func:`machine_cache`): its entries
live in a ``diskcache`` store (SQLite) in a private folder in memory (``/dev/shm``), its key
in a file there, readable by the server's user alone, so every process reads and writes it
directly, with no process between them (a ``multiprocessing`` manager in every check cost a
millisecond or more a mail under load: docs/performance.md). What is in that folder is what
a process's memory would hold, and like memory it is gone at a reboot. Where there is no
``/dev/shm``, or with ``PBM_EMERGO_CREDENTIAL_CACHE_SHARED=no``, each process has its own.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import secrets
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_TTL = 3600.0
#: Where the cache the processes of a machine share lives: a file system in memory.
MEMORY_ROOT = Path("/dev/shm")
DEFAULT_MAX_ENTRIES = 10_000

# player id -> (HMAC of the password, the stored hash it matched, expiry as a Unix time: the
# wall clock, because worker processes share entries)
Entry = tuple[bytes, str, float]


class CredentialCache:
    """Remembers verified passwords as keyed hashes (see the module docstring)."""

    def __init__(
        self,
        *,
        key: bytes | None = None,
        entries: MutableMapping[int, Entry] | None = None,
        ttl: float = DEFAULT_TTL,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._key = key or secrets.token_bytes(32)
        self._entries: MutableMapping[int, Entry] = {} if entries is None else entries
        self.ttl = ttl
        self.max_entries = max_entries
        self.clock = clock
        self._lock = threading.Lock()

    def _mac(self, player_id: int, password: str) -> bytes:
        message = f"{player_id}\0{password}".encode("utf-8", "surrogatepass")
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def check(self, player_id: int, stored_hash: str, password: str) -> bool:
        """True if ``password`` was verified for this player against ``stored_hash`` (still
        the stored one) within the time to live. False means: verify it the slow way."""
        entry = self._entries.get(player_id)
        if entry is None:
            return False
        mac, matched_hash, expires = entry
        if expires <= self.clock() or not hmac.compare_digest(matched_hash, stored_hash):
            return False
        return hmac.compare_digest(mac, self._mac(player_id, password))

    def remember(self, player_id: int, stored_hash: str, password: str) -> None:
        """Record a password just verified (or just set) for this player (not with a time
        to live of 0: then nothing is remembered)."""
        if self.ttl <= 0:
            return
        entry = (self._mac(player_id, password), stored_hash, self.clock() + self.ttl)
        with self._lock:
            if player_id not in self._entries and len(self._entries) >= self.max_entries:
                self._evict()
            self._entries[player_id] = entry

    def forget(self, player_id: int) -> None:
        """Drop the player's entry (password changed, locked out, signed off)."""
        with contextlib.suppress(KeyError):  # deleted at once, not looked up first
            del self._entries[player_id]

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def _evict(self) -> None:
        """Make room: expired entries go, then the tenth that expires soonest."""
        now = self.clock()
        items = list(self._entries.items())
        for player_id, (_, _, expires) in items:
            if expires <= now:
                self._entries.pop(player_id, None)
        if len(self._entries) < self.max_entries:
            return
        oldest = sorted(self._entries.items(), key=lambda item: item[1][2])
        for player_id, _ in oldest[: max(1, self.max_entries // 10)]:
            self._entries.pop(player_id, None)


class SharedEntries(MutableMapping[int, Entry]):
    """Entries kept in a ``diskcache`` store that every process of the machine opens: each
    expires by itself after the time to live, and the store culls the oldest beyond its
    size (about ``max_entries`` entries).

    A cache must never fail a mail: a store that cannot be read (``/dev/shm`` full, a lock
    held too long) answers "not known" (the password is hashed), one that cannot be written
    remembers nothing, each logged. An entry that could not be dropped stays harmless: it
    counts only while the player's stored hash is the one it matched."""

    def __init__(self, directory: Path, ttl: float, max_entries: int) -> None:
        import diskcache  # type: ignore[import-untyped]

        self._store: Any = diskcache.Cache(
            str(directory), size_limit=max(1, max_entries) * 512, timeout=5,
            eviction_policy="least-recently-stored",
        )
        self._failures = (sqlite3.Error, OSError, diskcache.Timeout)
        self._ttl = ttl

    def __getitem__(self, player_id: int) -> Entry:
        try:
            found = self._store.get(player_id)
        except self._failures as error:
            log.warning("the credential cache could not be read (%s); hashing instead", error)
            found = None
        if found is None:
            raise KeyError(player_id)
        mac, matched_hash, expires = found
        return bytes(mac), str(matched_hash), float(expires)

    def __setitem__(self, player_id: int, entry: Entry) -> None:
        try:
            self._store.set(player_id, entry, expire=self._ttl)
        except self._failures as error:
            log.warning("the credential cache could not be written (%s)", error)

    def __delitem__(self, player_id: int) -> None:
        try:
            deleted = self._store.delete(player_id)
        except self._failures as error:
            log.warning("the credential cache could not drop an entry (%s)", error)
            return
        if not deleted:
            raise KeyError(player_id)

    def __iter__(self) -> Iterator[int]:
        return iter(list(self._store))

    def __len__(self) -> int:
        return int(len(self._store))

    def clear(self) -> None:
        self._store.clear()


def private_folder(path: Path) -> Path:
    """``path`` as a folder only this user may enter: made so if missing, refused (an
    OSError) if it is a link, someone else's, or open to others (a shared ``/dev/shm``)."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700, parents=False)
    found = path.lstat()
    if (not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid()
            or found.st_mode & 0o077):
        raise OSError(f"{path} is not a private folder of this user")
    return path


def shared_key(folder: Path) -> bytes:
    """The key of the machine's cache in ``folder``: made by the first process (written to a
    new file, then linked into place, so that a reader never sees half a key)."""
    path = folder / "key"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    made = folder / f"key.{os.getpid()}.{secrets.token_hex(4)}"
    descriptor = os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(secrets.token_bytes(32))
    try:
        with contextlib.suppress(FileExistsError):  # another process was first: its key counts
            os.link(made, path)
    finally:
        made.unlink()
    return path.read_bytes()


def machine_cache(
    database_url: str, *, ttl: float, root: Path | None = None,
    max_entries: int = DEFAULT_MAX_ENTRIES,
) -> CredentialCache | None:
    """The cache shared by this machine's processes on ``database_url`` (a folder per user
    and database under ``root``, by default :data:`MEMORY_ROOT`), or None where it cannot
    be had (no such root)."""
    root = root or MEMORY_ROOT
    if not root.is_dir():
        return None
    digest = hashlib.sha256(database_url.encode()).hexdigest()[:16]
    user = private_folder(root / f"pbm-emergo-{os.getuid()}")
    folder = private_folder(user / f"credentials-{digest}")
    return CredentialCache(
        key=shared_key(folder), entries=SharedEntries(folder / "entries", ttl, max_entries),
        ttl=ttl, max_entries=max_entries,
    )


_cache = CredentialCache()


def cache() -> CredentialCache:
    """This process's credential cache."""
    return _cache


def install(new: CredentialCache) -> None:
    """Use ``new`` as this process's cache (worker processes: the machine's shared one)."""
    global _cache
    _cache = new


__all__ = ["CredentialCache", "SharedEntries", "cache", "install", "machine_cache"]
