"""``emergo challenge`` on values: the terms a challenge's options set, who may start the
game, and whether the challenged player takes it.

A challenge starts its game at once, without the challenged player's consent, so its
clock has floors (:mod:`pbm_emergo.game.clock`): the terms must leave them time to hear of
it before they can lose on time. Options below a floor are refused, not raised to it, so
that no game starts on terms the challenger did not write. A challenge is authorised by
the sender's address alone (or by a password, for a rematch); a player may refuse every
challenge, or those beyond a number of active boards, and a block refuses the blocked
player's in the same words, so that they cannot tell it from a refusal of everyone's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pbm_emergo.game.board import BoardState
from pbm_emergo.game.clock import (
    MAX_TIME_BANK_HOURS,
    MIN_FORFEIT_DAYS,
    MIN_NAG_DAYS,
    hours_of,
    time_bank_fault,
)
from pbm_emergo.game.numbers import DEFAULT_FORFEIT_DAYS, DEFAULT_NAG_DAYS
from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules.reasons import Reason

__all__ = [
    "MAX_DAYS",
    "ChallengeTerms",
    "Contender",
    "challenge_refusal",
    "challenge_terms",
    "challenger_of",
]

_OPTION = re.compile(r"--?([a-z]+)(?:=(\S+))?", re.IGNORECASE)
# The longest reminder, forfeit or total time a challenge may set, in days.
MAX_DAYS = 365


@dataclass(frozen=True)
class ChallengeTerms:
    """The terms of a new board: rated or not, what a blocked player's game is, and its
    clock (reminder and forfeit days; a total thinking time; a time bank with its
    increment, in hours; the weekends off)."""

    rated: bool = True
    blocked_rule: str = "loss"
    nag_days: int = DEFAULT_NAG_DAYS
    forfeit_days: int = DEFAULT_FORFEIT_DAYS
    total_days: int | None = None
    timebank_hours: int | None = None
    increment_hours: int | None = None
    weekends_off: bool = False


def terms_of(state: BoardState) -> ChallengeTerms:
    """The terms ``state``'s board is played on (a rematch plays on them again)."""
    return ChallengeTerms(
        rated=state.rated,
        blocked_rule=state.blocked_rule,
        nag_days=state.nag_days,
        forfeit_days=state.forfeit_days,
        total_days=state.total_days,
        timebank_hours=state.timebank_hours,
        increment_hours=state.increment_hours,
        weekends_off=state.weekends_off,
    )


@dataclass(frozen=True)
class Contender:
    """One of a challenge's two players as the decisions need them: the id, the userid,
    the registered addresses (lower case)."""

    id: int
    userid: str
    addresses: frozenset[str] = frozenset()


def challenge_terms(words: Sequence[str]) -> ChallengeTerms | Reason:
    """The terms the option words of a challenge set, or the reason the first wrong one
    is refused (no board is started)."""
    terms = ChallengeTerms()
    for word in words:
        match = _OPTION.fullmatch(word)
        name = match[1].lower() if match else ""
        value = match[2].lower() if match and match[2] else None
        if name in ("unrated", "rated") and value is None:
            terms = replace(terms, rated=name == "rated")
        elif name == "blocked" and value in ("draw", "loss"):
            terms = replace(terms, blocked_rule=value)
        elif name == "weekends" and value is None:
            terms = replace(terms, weekends_off=True)
        elif name in ("timebank", "increment") and value is not None:
            hours = hours_of(value)
            if hours is None or hours > MAX_TIME_BANK_HOURS:
                return refusal("option_hours", word=word[:40], most=MAX_DAYS)
            terms = (
                replace(terms, timebank_hours=hours) if name == "timebank"
                else replace(terms, increment_hours=hours)
            )
        elif name in ("nagtime", "forfeittime", "totaltime") and value is not None:
            days = _days(word, name, value)
            if isinstance(days, Reason):
                return days
            if name == "nagtime":
                terms = replace(terms, nag_days=days)
            elif name == "totaltime":
                terms = replace(terms, total_days=days)
            else:
                terms = replace(terms, forfeit_days=days)
        else:
            return refusal("option_unknown", word=word[:40])
    if terms.nag_days >= terms.forfeit_days:
        return refusal("nag_not_before_forfeit", nag=terms.nag_days, forfeit=terms.forfeit_days)
    fault = time_bank_fault(terms.timebank_hours, terms.increment_hours)
    if fault is not None:
        return refusal(f"{fault.code}_no_board", **dict(fault.values))
    return terms


def _days(word: str, name: str, value: str) -> int | Reason:
    """The days of a clock option, within its floor and :data:`MAX_DAYS`."""
    floor = MIN_NAG_DAYS if name == "nagtime" else MIN_FORFEIT_DAYS
    if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= MAX_DAYS:
        return refusal("option_days", word=word[:40], floor=floor, most=MAX_DAYS)
    days = int(value)
    if days < floor:
        code = "option_short_total" if name == "totaltime" else "option_short_forfeit"
        return refusal(code, word=word[:40], floor=floor)
    return days


def challenger_of(
    white: Contender, black: Contender, *, sender: str, sender_trusted: bool,
    logged_in: int | None = None,
) -> Contender | Reason:
    """Who of the two starts the game: ``logged_in``, the id of the one who gave their
    password (a rematch), else the one whose registered address sent it; or why nobody
    may."""
    if white.id == black.id:
        return refusal("challenge_same_player")
    if logged_in is not None:
        for contender in (white, black):
            if contender.id == logged_in:
                return contender
        return refusal("challenge_not_theirs", white=white.userid, black=black.userid)
    if not sender_trusted:
        return refusal("challenge_untrusted")
    address = sender.lower()
    for contender in (white, black):
        if address in contender.addresses:
            return contender
    return refusal("challenge_not_from_them", white=white.userid, black=black.userid)


def challenge_refusal(
    userid: str, *, refuses: bool, blocks_challenger: bool, limit: int | None, active: int
) -> Reason | None:
    """Why the player ``userid`` does not take this challenge (None: they do): they refuse
    every challenge or block the challenger (said alike), or they have ``active`` boards
    of the ``limit`` they set."""
    if refuses or blocks_challenger:
        return refusal("challenge_refused", userid=userid)
    if limit is not None and active >= limit:
        return refusal("challenge_over_limit", userid=userid, num=limit)
    return None
