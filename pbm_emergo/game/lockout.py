"""The lock-out arithmetic on values: how one more wrong password counts, and when it
locks (the policy and its messages: :mod:`pbm_emergo.app.lockout`).

Failures are counted per player and sender key: a sender's own address, or
:data:`OTHER_SENDERS` for every sender not registered for the player together. A count
runs in a window of :data:`FAILURE_WINDOW` from its first failure; the failure that
reaches the key's limit locks the key for :data:`LOCK_TIME`. A lock that ran out, or a
window older than :data:`FAILURE_WINDOW`, starts the count again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm_emergo.game.account_changes import LoginFailureRecorded, OldLoginFailuresForgotten

# The key of the count of every sender not registered for the player, together.
OTHER_SENDERS = "*"
MAX_FAILURES = 5  # from one sender, within FAILURE_WINDOW
MAX_OTHER_FAILURES = 20  # from every unregistered sender together, within FAILURE_WINDOW
FAILURE_WINDOW = timedelta(hours=1)
LOCK_TIME = timedelta(hours=1)
# Counts older than this (and not locked) are dropped when a new failure is counted.
KEEP_COUNTS = timedelta(days=1)


def limit(key: str) -> int:
    """The wrong passwords within the window that lock ``key``."""
    return MAX_OTHER_FAILURES if key == OTHER_SENDERS else MAX_FAILURES


@dataclass(frozen=True)
class FailureCount:
    """A count of wrong passwords as read: ``count`` in the window from ``window_start``,
    locked until ``locked_until`` (None: not locked, or the lock ended)."""

    count: int
    window_start: datetime
    locked_until: datetime | None = None


@dataclass(frozen=True)
class Counted:
    """One more wrong password counted: the changes that store it (each count re-checked
    against the one read, then the old counts dropped), how many wrong passwords are left
    before a lock (0 at the most), and the keys it locked, with until when."""

    changes: tuple[LoginFailureRecorded | OldLoginFailuresForgotten, ...]
    attempts_left: int
    locked: tuple[tuple[str, datetime], ...]


def count_wrong_password(
    player_id: int, keys: Sequence[str], counts: Mapping[str, FailureCount], now: datetime
) -> Counted:
    """One more wrong password for ``player_id`` from a sender whose failures go to
    ``keys``; ``counts``: the player's counts as read, by key."""
    changes: list[LoginFailureRecorded | OldLoginFailuresForgotten] = []
    attempts_left = MAX_FAILURES
    locked: list[tuple[str, datetime]] = []
    for key in keys:
        read = counts.get(key)
        previous = None if read is None else read.count
        count, window_start = 0, now
        running = read is not None and read.locked_until is None
        if read is not None and running and now - read.window_start <= FAILURE_WINDOW:
            count, window_start = read.count, read.window_start
        count += 1
        locked_until = now + LOCK_TIME if count >= limit(key) else None
        attempts_left = min(attempts_left, limit(key) - count)
        if locked_until is not None:
            locked.append((key, locked_until))
        changes.append(
            LoginFailureRecorded(player_id, key, previous, count, window_start, now, locked_until)
        )
    changes.append(OldLoginFailuresForgotten(player_id, now - KEEP_COUNTS))
    return Counted(tuple(changes), max(attempts_left, 0), tuple(locked))
