"""What a player's settings of how the server talks to them store: the time zone they read
times in, their daily digest. One frozen value per distinct write
(:func:`pbm_emergo.db.apply.apply` applies them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class TimezoneSet:
    """The player reads times in ``timezone`` (an IANA name, as the time zone data spell
    it)."""

    player_id: int
    timezone: str


@dataclass(frozen=True)
class DigestSet:
    """The player's daily digest at ``hour`` (None: off, a board mail a change again),
    counted from ``at`` (the first comes at the next such hour)."""

    player_id: int
    hour: int | None
    at: datetime


@dataclass(frozen=True)
class DigestSent:
    """The player's digest sent (or found with nothing to send) at ``at``; the digest must
    still be on and last sent at ``expected`` (else another run sent it: conflict)."""

    player_id: int
    at: datetime
    expected: datetime | None


@dataclass(frozen=True)
class LanguageSet:
    """The player's replies are written in ``language`` (a locale the server writes)."""

    player_id: int
    language: str


SettingChange = TimezoneSet | DigestSet | DigestSent | LanguageSet
SETTING_CHANGE_TYPES: tuple[type, ...] = (TimezoneSet, DigestSet, DigestSent, LanguageSet)
