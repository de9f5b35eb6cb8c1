"""The lock-out arithmetic on values: a wrong password counted, a window run out, a lock."""

from __future__ import annotations

from datetime import timedelta

from pbm_emergo.game.account_changes import LoginFailureRecorded, OldLoginFailuresForgotten
from pbm_emergo.game.lockout import (
    FAILURE_WINDOW,
    KEEP_COUNTS,
    LOCK_TIME,
    MAX_FAILURES,
    MAX_OTHER_FAILURES,
    OTHER_SENDERS,
    FailureCount,
    count_wrong_password,
)
from tests.game.boards import NOW

SENDER = "mallory@example.net"


def test_a_first_wrong_password_starts_both_counts() -> None:
    counted = count_wrong_password(7, (SENDER, OTHER_SENDERS), {}, NOW)
    assert counted.changes == (
        LoginFailureRecorded(7, SENDER, None, 1, NOW, NOW, None),
        LoginFailureRecorded(7, OTHER_SENDERS, None, 1, NOW, NOW, None),
        OldLoginFailuresForgotten(7, NOW - KEEP_COUNTS),
    )
    assert counted.attempts_left == MAX_FAILURES - 1 and counted.locked == ()


def test_the_last_failure_in_the_window_locks_its_key() -> None:
    start = NOW - timedelta(minutes=20)
    counts = {
        SENDER: FailureCount(MAX_FAILURES - 1, start),
        OTHER_SENDERS: FailureCount(3, start),
    }
    counted = count_wrong_password(7, (SENDER, OTHER_SENDERS), counts, NOW)
    first = counted.changes[0]
    assert first == LoginFailureRecorded(
        7, SENDER, MAX_FAILURES - 1, MAX_FAILURES, start, NOW, NOW + LOCK_TIME
    )
    assert counted.locked == ((SENDER, NOW + LOCK_TIME),)
    assert counted.attempts_left == 0


def test_the_others_together_lock_at_their_own_limit() -> None:
    counts = {OTHER_SENDERS: FailureCount(MAX_OTHER_FAILURES - 1, NOW - timedelta(minutes=5))}
    counted = count_wrong_password(7, (OTHER_SENDERS,), counts, NOW)
    assert counted.locked == ((OTHER_SENDERS, NOW + LOCK_TIME),)
    assert counted.attempts_left == 0


def test_an_old_window_or_an_ended_lock_starts_again() -> None:
    old = FailureCount(4, NOW - FAILURE_WINDOW - timedelta(seconds=1))
    ended = FailureCount(5, NOW - timedelta(minutes=90), NOW - timedelta(minutes=30))
    for read in (old, ended):
        counted = count_wrong_password(7, (SENDER,), {SENDER: read}, NOW)
        assert counted.changes[0] == LoginFailureRecorded(
            7, SENDER, read.count, 1, NOW, NOW, None
        )
        assert counted.attempts_left == MAX_FAILURES - 1
