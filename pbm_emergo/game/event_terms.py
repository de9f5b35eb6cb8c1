"""The terms of a league or tournament, decided on values: which names and options an event
may have, a private event's terms from its creator's option words, and the rounds and
places an event gets when its creator leaves them open.

A wrong term is a reason (:mod:`pbm_emergo.game.reasons`), the first one found; the shell
says it in the reader's language. The clock's floors are a challenge's
(:mod:`pbm_emergo.game.challenges`): nobody loses an event's game on time before a reminder
can reach them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbm_emergo.game.challenges import MAX_DAYS
from pbm_emergo.game.clock import MIN_FORFEIT_DAYS, MIN_NAG_DAYS, hours_of, time_bank_fault
from pbm_emergo.game.numbers import DEFAULT_FORFEIT_DAYS, DEFAULT_NAG_DAYS
from pbm_emergo.game.reasons import refusal
from pbm_emergo.game.tournaments import (
    EVENT_FORMATS,
    KNOCKOUT,
    LEAGUE,
    ROBOT_POLICIES,
    ROBOTS_NONE,
    ROUND_ROBIN,
    SWISS,
)
from pbm_emergo.rules.reasons import Reason

__all__ = [
    "DEFAULT_DIVISION",
    "DEFAULT_SWISS_ROUNDS",
    "EVENT_NAME",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "PRIVATE_EVENTS_AT_A_TIME",
    "PRIVATE_FORMATS",
    "PRIVATE_MAX_PLAYERS",
    "PRIVATE_STARTS_WITHIN",
    "EventTerms",
    "event_name_fault",
    "event_terms_fault",
    "planned_size",
    "private_terms",
]

EVENT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{1,23}")
MAX_ROUNDS = 30
MAX_PLAYERS = 64
DEFAULT_SWISS_ROUNDS = 5
DEFAULT_DIVISION = 8

# A player's private events (emergo event create): what one mail may start is bounded,
# like a challenge (docs/security.md).
PRIVATE_EVENTS_AT_A_TIME = 2
PRIVATE_MAX_PLAYERS = 16
PRIVATE_FORMATS = (ROUND_ROBIN, SWISS, KNOCKOUT)
PRIVATE_STARTS_WITHIN = timedelta(days=30)
_MAIL_OPTION = re.compile(r"--?([a-z-]+)(?:=(\S+))?", re.IGNORECASE)
_RELATIVE_START = re.compile(r"\+([0-9]{1,3})([dh])")
# The option words that take a number, and the term each sets.
_NUMBER_OPTIONS = {
    "rounds": "rounds", "max-players": "max_players", "nagtime": "nag_days",
    "forfeittime": "forfeit_days", "totaltime": "total_days",
}  # fmt: skip


@dataclass(frozen=True)
class EventTerms:
    """What an event is played on, as its creator wrote it (checked)."""

    event_format: str
    rounds: int | None = None
    max_players: int | None = None
    starts_at: datetime | None = None
    nag_days: int = DEFAULT_NAG_DAYS
    forfeit_days: int = DEFAULT_FORFEIT_DAYS
    total_days: int | None = None
    robots: str = ROBOTS_NONE
    rated: bool = True
    timebank_hours: int | None = None
    increment_hours: int | None = None
    weekends_off: bool = False


def event_name_fault(name: str) -> Reason | None:
    """Why ``name`` cannot be an event's name, or None."""
    if EVENT_NAME.fullmatch(name):
        return None
    return refusal("event_name", name=name[:40])


def event_terms_fault(terms: EventTerms) -> Reason | None:
    """The first of ``terms`` that is wrong, or None."""
    if terms.event_format not in EVENT_FORMATS:
        return refusal("event_format", formats=", ".join(EVENT_FORMATS))
    if terms.robots not in ROBOT_POLICIES:
        return refusal("event_robots")
    if terms.rounds is not None and not 1 <= terms.rounds <= MAX_ROUNDS:
        return refusal("event_rounds", most=MAX_ROUNDS)
    if terms.event_format in (ROUND_ROBIN, LEAGUE) and (terms.rounds or 1) > 2:
        return refusal("event_round_robin_rounds")
    if terms.max_players is not None and not 2 <= terms.max_players <= MAX_PLAYERS:
        return refusal("event_max_players", most=MAX_PLAYERS)
    if not MIN_NAG_DAYS <= terms.nag_days <= MAX_DAYS:
        return refusal("event_nagtime", least=MIN_NAG_DAYS, most=MAX_DAYS)
    if not MIN_FORFEIT_DAYS <= terms.forfeit_days <= MAX_DAYS:
        return refusal("event_forfeittime", least=MIN_FORFEIT_DAYS, most=MAX_DAYS)
    if terms.total_days is not None and not MIN_FORFEIT_DAYS <= terms.total_days <= MAX_DAYS:
        return refusal("event_totaltime", least=MIN_FORFEIT_DAYS, most=MAX_DAYS)
    if terms.nag_days >= terms.forfeit_days:
        return refusal("event_nag_not_shorter")
    return time_bank_fault(terms.timebank_hours, terms.increment_hours)


def planned_size(terms: EventTerms) -> tuple[int | None, int | None]:
    """The rounds and the places of an event on ``terms``: a Swiss event's rounds and a
    league division's places have defaults; the others are as written (None: as many as
    the players make)."""
    rounds = terms.rounds
    if rounds is None and terms.event_format == SWISS:
        rounds = DEFAULT_SWISS_ROUNDS
    max_players = terms.max_players
    if max_players is None and terms.event_format == LEAGUE:
        max_players = DEFAULT_DIVISION
    return rounds, max_players


def private_terms(
    event_format: str, words: Sequence[str], now: datetime
) -> EventTerms | Reason:
    """The terms of a private event from its creator's option words, or the reason the
    first wrong one is refused."""
    if event_format.lower() not in PRIVATE_FORMATS:
        return refusal("private_event_format", formats=", ".join(PRIVATE_FORMATS))
    values: dict[str, Any] = {"event_format": event_format.lower()}
    for word in words:
        match = _MAIL_OPTION.fullmatch(word)
        key = match[1].lower() if match else ""
        value = match[2] if match else None
        if key == "unrated" and value is None:
            values["rated"] = False
        elif key == "starts" and value is not None:
            starts = _relative(word, value, now)
            if isinstance(starts, Reason):
                return starts
            values["starts_at"] = starts
        elif key == "weekends" and value is None:
            values["weekends_off"] = True
        elif key in ("timebank", "increment") and value is not None and (
            (hours := hours_of(value)) is not None
        ):
            values[f"{key}_hours"] = hours
        elif key in _NUMBER_OPTIONS and (
            value is not None and value.isascii() and value.isdigit() and len(value) <= 3
        ):
            values[_NUMBER_OPTIONS[key]] = int(value)
        else:
            return refusal("event_option", word=word[:40])
    values.setdefault("max_players", PRIVATE_MAX_PLAYERS)
    if values["max_players"] > PRIVATE_MAX_PLAYERS:
        return refusal("private_event_players", most=PRIVATE_MAX_PLAYERS)
    terms = EventTerms(**values)
    return event_terms_fault(terms) or terms


def _relative(word: str, value: str, now: datetime) -> datetime | Reason:
    """The start ``+Nd`` or ``+Nh`` from ``now``, within :data:`PRIVATE_STARTS_WITHIN`."""
    match = _RELATIVE_START.fullmatch(value)
    if not match:
        return refusal("event_start", word=word[:40])
    amount = int(match[1])
    delay = timedelta(days=amount) if match[2] == "d" else timedelta(hours=amount)
    if delay > PRIVATE_STARTS_WITHIN:
        return refusal("event_start_later")
    return now + delay
