"""A challenge on values: the terms its options set and the reason the first wrong one is
refused, who may start the game, whether the challenged player takes it. No database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbm_emergo.game.challenges import (
    MAX_DAYS,
    ChallengeTerms,
    Contender,
    challenge_refusal,
    challenge_terms,
    challenger_of,
)
from pbm_emergo.game.clock import MIN_FORFEIT_DAYS, MIN_NAG_DAYS
from pbm_emergo.game.numbers import DEFAULT_FORFEIT_DAYS, DEFAULT_NAG_DAYS
from pbm_emergo.rules.reasons import Reason

ALICE = Contender(1, "alice", frozenset({"alice@example.org"}))
BOB = Contender(2, "bob", frozenset({"bob@example.org", "bob@work.example"}))


@pytest.mark.parametrize(
    ("words", "terms"),
    [
        ((), ChallengeTerms()),
        (("-unrated",), ChallengeTerms(rated=False)),
        (("-unrated", "--rated"), ChallengeTerms()),
        (("-blocked=draw",), ChallengeTerms(blocked_rule="draw")),
        (("-BLOCKED=Loss",), ChallengeTerms()),
        (("--nagtime=3", "--forfeittime=10"), ChallengeTerms(nag_days=3, forfeit_days=10)),
        (("--totaltime=30",), ChallengeTerms(total_days=30)),
        (("-timebank=240h",), ChallengeTerms(timebank_hours=240)),
        (
            ("-timebank=10d", "-increment=36h"),
            ChallengeTerms(timebank_hours=240, increment_hours=36),
        ),
        (("-weekends",), ChallengeTerms(weekends_off=True)),
        ((f"--forfeittime={MAX_DAYS}",), ChallengeTerms(forfeit_days=MAX_DAYS)),
    ],
)
def test_the_options_set_the_terms(words: tuple[str, ...], terms: ChallengeTerms) -> None:
    assert challenge_terms(words) == terms


def test_the_default_terms_are_the_servers_defaults() -> None:
    terms = ChallengeTerms()
    assert (terms.rated, terms.blocked_rule) == (True, "loss")
    assert (terms.nag_days, terms.forfeit_days) == (DEFAULT_NAG_DAYS, DEFAULT_FORFEIT_DAYS)
    assert terms.nag_days < terms.forfeit_days


@pytest.mark.parametrize(
    ("words", "code", "english"),
    [
        (("-fast",), "option_unknown", "Unknown option '-fast': the options are -unrated"),
        (("-weekends=yes",), "option_unknown", "Unknown option '-weekends=yes'"),
        (("-blocked=win",), "option_unknown", "Unknown option '-blocked=win'"),
        (("--nagtime",), "option_unknown", "Unknown option '--nagtime'"),
        (("--nagtime=x",), "option_days", "The option --nagtime=x needs a number of days from 1"),
        (("--nagtime=0",), "option_days", f"from {MIN_NAG_DAYS} to {MAX_DAYS}."),
        ((f"--forfeittime={MAX_DAYS + 1}",), "option_days", "needs a number of days"),
        (("--forfeittime=2",), "option_short_forfeit", "the forfeit time of a game is at least 3"),
        (("--totaltime=2",), "option_short_total", "the total thinking time of a game is at"),
        (("-timebank=x",), "option_hours", "needs a time in hours (240h) or days (10d)"),
        (("-increment=99999h",), "option_hours", "The option -increment=99999h needs a time"),
        (("--nagtime=28",), "nag_not_before_forfeit", "(--nagtime=28) must be shorter"),
        (("--nagtime=5", "--forfeittime=5"), "nag_not_before_forfeit", "(--forfeittime=5)"),
        (("-increment=36h",), "timebank_increment_alone_no_board", "give -timebank= too"),
        (("-timebank=24h",), "timebank_range_no_board", "The time bank (-timebank=) holds"),
        (
            ("-timebank=100h", "-increment=101h"),
            "timebank_increment_over_no_board",
            "The increment (-increment=) is more than the time bank holds",
        ),
        # The first wrong option is the one refused.
        (("--nagtime=0", "-fast"), "option_days", "--nagtime=0"),
        (("-fast", "--nagtime=0"), "option_unknown", "-fast"),
    ],
)
def test_a_wrong_option_is_refused_with_its_reason(
    words: tuple[str, ...], code: str, english: str
) -> None:
    reason = challenge_terms(words)
    assert isinstance(reason, Reason) and reason.code == code
    assert english in str(reason)
    assert str(reason).endswith(".")


def test_a_long_option_is_quoted_shortened() -> None:
    reason = challenge_terms(["-" + "x" * 100])
    assert isinstance(reason, Reason) and "x" * 39 + "'" in str(reason)
    assert "x" * 40 not in str(reason)


@given(
    nag=st.integers(min_value=-5, max_value=MAX_DAYS + 5),
    forfeit=st.integers(min_value=-5, max_value=MAX_DAYS + 5),
)
def test_no_terms_let_a_game_be_lost_before_its_reminder(nag: int, forfeit: int) -> None:
    terms = challenge_terms([f"--nagtime={nag}", f"--forfeittime={forfeit}"])
    if isinstance(terms, ChallengeTerms):
        assert MIN_NAG_DAYS <= terms.nag_days < terms.forfeit_days <= MAX_DAYS
        assert terms.forfeit_days >= MIN_FORFEIT_DAYS
        assert (terms.nag_days, terms.forfeit_days) == (nag, forfeit)
    else:
        assert not MIN_NAG_DAYS <= nag < forfeit or not MIN_FORFEIT_DAYS <= forfeit <= MAX_DAYS


@pytest.mark.parametrize(
    ("sender", "trusted", "logged_in", "expected"),
    [
        ("alice@example.org", True, None, "alice"),
        ("ALICE@Example.org", True, None, "alice"),
        ("bob@work.example", True, None, "bob"),
        ("carol@example.org", True, None, "challenge_not_from_them"),
        ("alice@example.org", False, None, "challenge_untrusted"),
        # A rematch: the one who gave their password, whatever the address.
        ("carol@example.org", False, 2, "bob"),
        ("alice@example.org", True, 3, "challenge_not_theirs"),
    ],
)
def test_who_starts_the_game(
    sender: str, trusted: bool, logged_in: int | None, expected: str
) -> None:
    chosen = challenger_of(ALICE, BOB, sender=sender, sender_trusted=trusted, logged_in=logged_in)
    if isinstance(chosen, Reason):
        assert chosen.code == expected
        assert "alice" in str(chosen) or expected == "challenge_untrusted"
    else:
        assert chosen.userid == expected


def test_a_game_needs_two_players() -> None:
    same = challenger_of(ALICE, ALICE, sender="alice@example.org", sender_trusted=True)
    assert isinstance(same, Reason) and str(same) == "A game needs two different players."


@pytest.mark.parametrize(
    ("refuses", "blocks", "limit", "active", "expected"),
    [
        (False, False, None, 50, None),
        (True, False, None, 0, "challenge_refused"),
        (False, True, None, 0, "challenge_refused"),
        (False, False, 3, 2, None),
        (False, False, 3, 3, "challenge_over_limit"),
        (False, False, 0, 0, "challenge_over_limit"),
        (True, False, 3, 5, "challenge_refused"),
    ],
)
def test_whether_the_challenged_player_takes_it(
    refuses: bool, blocks: bool, limit: int | None, active: int, expected: str | None
) -> None:
    reason = challenge_refusal(
        "bob", refuses=refuses, blocks_challenger=blocks, limit=limit, active=active
    )
    assert (reason.code if reason is not None else None) == expected


def test_a_block_is_refused_in_the_words_of_a_refusal_of_everyone() -> None:
    blocked = challenge_refusal("bob", refuses=False, blocks_challenger=True, limit=None, active=0)
    everyone = challenge_refusal("bob", refuses=True, blocks_challenger=False, limit=None, active=0)
    assert blocked == everyone
    assert str(blocked) == (
        "bob does not accept challenges at the moment, so no board was started."
    )
    over = challenge_refusal("bob", refuses=False, blocks_challenger=False, limit=1, active=1)
    assert "(1 active board)" in str(over)
