"""The clocks of a board, for the shell: the arithmetic is the game's
(:mod:`pbm_emergo.game.clock`); the scheduler (:mod:`pbm_emergo.app.timers`), the challenges
and the board mail take it from here."""

from __future__ import annotations

from pbm_emergo.game.clock import MAX_TIME_BANK_HOURS as MAX_TIME_BANK_HOURS
from pbm_emergo.game.clock import (
    MIN_FORFEIT_DAYS,
    MIN_NAG_DAYS,
    REMINDER_NOTICE,
    overlap,
    running,
    side_periods,
    thinking_time,
)
from pbm_emergo.game.clock import TimeBank as TimeBank
from pbm_emergo.game.clock import bank_left as bank_left
from pbm_emergo.game.clock import clock_terms_text as clock_terms_text
from pbm_emergo.game.clock import hours_of as hours_of
from pbm_emergo.game.clock import local_time as local_time
from pbm_emergo.game.clock import time_bank_fault as time_bank_fault
from pbm_emergo.game.clock import weekends as weekends

__all__ = [
    "MIN_FORFEIT_DAYS",
    "MIN_NAG_DAYS",
    "REMINDER_NOTICE",
    "overlap",
    "running",
    "side_periods",
    "thinking_time",
]
