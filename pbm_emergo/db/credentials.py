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

Worker processes of one server share one cache (:func:`shared_cache` gives them the key and
a dictionary kept by a ``multiprocessing`` manager); a plain process has its own.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable, MutableMapping
from typing import Any

DEFAULT_TTL = 3600.0
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
        """Record a password just verified (or just set) for this player."""
        entry = (self._mac(player_id, password), stored_hash, self.clock() + self.ttl)
        with self._lock:
            if player_id not in self._entries and len(self._entries) >= self.max_entries:
                self._evict()
            self._entries[player_id] = entry

    def forget(self, player_id: int) -> None:
        """Drop the player's entry (password changed, locked out, signed off)."""
        self._entries.pop(player_id, None)

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


_cache = CredentialCache()


def cache() -> CredentialCache:
    """This process's credential cache."""
    return _cache


def install(new: CredentialCache) -> None:
    """Use ``new`` as this process's cache (worker processes: the server's shared one)."""
    global _cache
    _cache = new


def shared_cache(manager: Any) -> tuple[bytes, Any]:
    """A key and a manager-kept dictionary for a cache shared by worker processes: pass both
    to each process, which calls ``install(CredentialCache(key=key, entries=entries))``."""
    return secrets.token_bytes(32), manager.dict()


__all__ = ["CredentialCache", "cache", "install", "shared_cache"]
