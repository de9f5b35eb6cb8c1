"""The forgotten-password decisions on values: when a code may be mailed, when a code sets
a password."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pbm_emergo.game.resets import (
    RESET_TIME,
    RESETS_PER_DAY,
    ResetCode,
    may_mail_code,
    reset_refusal,
)

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_codes_are_capped_per_day_and_the_cap_rolls_over() -> None:
    assert may_mail_code([], NOW)
    day = [NOW - timedelta(hours=h) for h in range(RESETS_PER_DAY)]
    assert not may_mail_code(day, NOW)
    # The oldest one a day old no longer counts.
    assert may_mail_code(day, day[-1] + timedelta(days=1, seconds=1))
    assert may_mail_code(day[:-1], NOW)


def test_a_fresh_code_sets_a_password() -> None:
    code = ResetCode(1, 7, expires_at=NOW + RESET_TIME)
    assert reset_refusal(code, NOW) is None
    assert reset_refusal(code, NOW + RESET_TIME - timedelta(seconds=1)) is None


def test_wrong_expired_and_used_codes_are_refused_each_with_its_reason() -> None:
    wrong = reset_refusal(None, NOW)
    assert wrong is not None and str(wrong).startswith("No password reset is waiting for this code")
    expired = reset_refusal(ResetCode(1, 7, expires_at=NOW), NOW)
    assert str(expired) == (
        "This code expired at 2026-12-01 12:00 UTC (a code works for 1 day after it is "
        "mailed). Send 'forgot USERID' for a new code."
    )
    used = reset_refusal(ResetCode(1, 7, NOW + RESET_TIME, used_at=NOW - timedelta(hours=1)), NOW)
    assert str(used) == (
        "This code was used at 2026-12-01 11:00 UTC, and a code works once. "
        "Send 'forgot USERID' for a new code."
    )
