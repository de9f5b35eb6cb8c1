"""A forgotten password on values: whether another reset code may be mailed, and whether a
code sent back with ``reset`` may set a password.

A code is mailed only to the player's registered addresses, at most
:data:`RESETS_PER_DAY` a day for one player (whoever asks), and sets a password once,
within :data:`RESET_TIME` of being mailed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules.reasons import Reason

# How long a mailed reset code sets a password.
RESET_TIME = timedelta(days=1)
# Reset codes mailed for one player in a day, whoever asks: each is a mail the player did
# not ask for when someone else sends `forgot`.
RESETS_PER_DAY = 3
RESET_WINDOW = timedelta(days=1)


@dataclass(frozen=True)
class ResetCode:
    """A reset code as stored: whose it is, until when it works, when it was used."""

    id: int
    player_id: int
    expires_at: datetime
    used_at: datetime | None = None


def may_mail_code(mailed: Sequence[datetime], now: datetime) -> bool:
    """Whether another code may be mailed for a player whose codes were mailed at
    ``mailed``: fewer than :data:`RESETS_PER_DAY` in the last day."""
    return sum(1 for at in mailed if at > now - RESET_WINDOW) < RESETS_PER_DAY


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def reset_refusal(code: ResetCode | None, now: datetime) -> Reason | None:
    """Why ``code`` (None: no code matches what was sent) sets no password, or None when
    it does."""
    if code is None:
        return refusal("reset_unknown")
    if code.used_at is not None:
        return refusal("reset_used", at=_at(code.used_at))
    if code.expires_at <= now:
        return refusal("reset_expired", at=_at(code.expires_at), days=RESET_TIME.days)
    return None
