"""The terms of a league or tournament, on values: event names, the first wrong term, a
private event's option words, and the rounds and places an event gets. No database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from pbm_emergo.game.event_terms import (
    DEFAULT_DIVISION,
    DEFAULT_SWISS_ROUNDS,
    PRIVATE_MAX_PLAYERS,
    EventTerms,
    event_name_fault,
    event_terms_fault,
    planned_size,
    private_terms,
)
from pbm_emergo.game.tournaments import KNOCKOUT, LEAGUE, ROUND_ROBIN, SWISS
from pbm_emergo.rules.reasons import Reason

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("name", ["Autumn", "cup-2026", "a_b", "Z9"])
def test_names_an_event_may_have(name: str) -> None:
    assert event_name_fault(name) is None


@pytest.mark.parametrize("name", ["9lives", "x", "a" * 25, "two words", "caf\u00e9", "-cup"])
def test_names_an_event_may_not_have(name: str) -> None:
    fault = event_name_fault(name)
    assert isinstance(fault, Reason) and fault.code == "event_name"


def test_good_terms() -> None:
    assert event_terms_fault(EventTerms(SWISS, rounds=7, max_players=20)) is None
    assert event_terms_fault(EventTerms(ROUND_ROBIN, rounds=2, nag_days=3, forfeit_days=9)) is None


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"event_format": "ladder"}, "event_format"),
        ({"robots": "always"}, "event_robots"),
        ({"rounds": 0}, "event_rounds"),
        ({"rounds": 31}, "event_rounds"),
        ({"event_format": ROUND_ROBIN, "rounds": 3}, "event_round_robin_rounds"),
        ({"event_format": LEAGUE, "rounds": 3}, "event_round_robin_rounds"),
        ({"max_players": 1}, "event_max_players"),
        ({"max_players": 65}, "event_max_players"),
        ({"nag_days": 0}, "event_nagtime"),
        ({"forfeit_days": 2}, "event_forfeittime"),
        ({"total_days": 2}, "event_totaltime"),
        ({"nag_days": 9, "forfeit_days": 9}, "event_nag_not_shorter"),
        ({"timebank_hours": 10}, "timebank_range"),  # the time bank's own checks
        # The first wrong one is named.
        ({"event_format": "ladder", "rounds": 0}, "event_format"),
    ],
)
def test_the_first_wrong_term_is_named(changes: dict[str, object], code: str) -> None:
    fault = event_terms_fault(replace(EventTerms(SWISS), **changes))  # type: ignore[arg-type]
    assert isinstance(fault, Reason) and fault.code == code


def test_a_private_event_from_its_option_words() -> None:
    terms = private_terms(
        "Swiss",
        ["--rounds=4", "-max-players=10", "--starts=+2d", "-unrated", "-weekends",
         "-timebank=240h", "-increment=36h", "--nagtime=3", "--forfeittime=9"],
        NOW,
    )
    assert terms == EventTerms(
        SWISS, rounds=4, max_players=10, starts_at=NOW + timedelta(days=2), rated=False,
        weekends_off=True, timebank_hours=240, increment_hours=36, nag_days=3, forfeit_days=9,
    )
    # Without options: as many places as a private event has, starting when full.
    assert private_terms("knockout", [], NOW) == EventTerms(
        KNOCKOUT, max_players=PRIVATE_MAX_PLAYERS
    )
    assert private_terms("round-robin", ["--starts=+12h"], NOW) == EventTerms(
        ROUND_ROBIN, max_players=PRIVATE_MAX_PLAYERS, starts_at=NOW + timedelta(hours=12)
    )


@pytest.mark.parametrize(
    ("event_format", "words", "code"),
    [
        (LEAGUE, [], "private_event_format"),  # leagues are the operator's
        (SWISS, ["--colour=white"], "event_option"),
        (SWISS, ["--rounds=many"], "event_option"),
        (SWISS, ["--rounds=1000"], "event_option"),
        (SWISS, ["-unrated=yes"], "event_option"),
        (SWISS, ["--max-players=17"], "private_event_players"),
        (SWISS, ["--starts=tomorrow"], "event_start"),
        (SWISS, ["--starts=+31d"], "event_start_later"),
        (SWISS, ["--rounds=31"], "event_rounds"),  # then the terms' own checks
        (ROUND_ROBIN, ["--nagtime=9", "--forfeittime=9"], "event_nag_not_shorter"),
    ],
)
def test_wrong_private_terms(event_format: str, words: list[str], code: str) -> None:
    terms = private_terms(event_format, words, NOW)
    assert isinstance(terms, Reason) and terms.code == code


def test_the_rounds_and_places_left_open() -> None:
    assert planned_size(EventTerms(SWISS)) == (DEFAULT_SWISS_ROUNDS, None)
    assert planned_size(EventTerms(LEAGUE)) == (None, DEFAULT_DIVISION)
    assert planned_size(EventTerms(KNOCKOUT)) == (None, None)
    assert planned_size(EventTerms(SWISS, rounds=3, max_players=12)) == (3, 12)
