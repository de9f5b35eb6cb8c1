"""What a player's settings of how the server talks to them store: the time zone they read
times in. One frozen value per distinct write (:func:`pbm_emergo.db.apply.apply` applies
them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimezoneSet:
    """The player reads times in ``timezone`` (an IANA name, as the time zone data spell
    it)."""

    player_id: int
    timezone: str


SettingChange = TimezoneSet
SETTING_CHANGE_TYPES: tuple[type, ...] = (TimezoneSet,)
