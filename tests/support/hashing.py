"""An argon2id hasher for tests that count how many passwords the server hashes."""

from __future__ import annotations

import threading

from argon2 import PasswordHasher


class CountingHasher(PasswordHasher):
    """The tests' quick argon2id, counting how many passwords it checks."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=1024, parallelism=1)
        self.checked = 0
        self._lock = threading.Lock()

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:  # noqa: A002
        with self._lock:
            self.checked += 1
        return super().verify(hash, password)
