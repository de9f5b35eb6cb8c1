"""The refusals of challenges, blocks, notes, vacations, subscriptions and codes in the
player's language: a player who chose German reads each in German, the values (options,
userids, board numbers, command lines) as written; the English player reads the English."""

from __future__ import annotations

import pytest

from tests.support.mailer import Mailer
from tests.support.text import flat


@pytest.fixture
def german(game: Mailer) -> Mailer:
    """Board 101 of alice and bob; bob reads German."""
    game.one("language bob bobpw de", sender="bob@example.org")
    return game


@pytest.mark.parametrize(
    ("subject", "german_text", "english_text"),
    [
        (
            "emergo challenge {me} {other} --nagtime=x",
            "Die Option --nagtime=x",
            "The option --nagtime=x needs a number of days",
        ),
        ("emergo challenge {me} {other} -fast", "Unbekannte Option", "Unknown option"),
        ("emergo challenge {me} {me}", "zwei", "A game needs two different players."),
        ("block {me} {pw} {me}", "", "You cannot block yourself."),
        ("unblock {me} {pw} {other}", "", "You do not block that player."),
        ("emergo note 101 {me} {pw}", "", "The note is empty"),
        ("vacation {me} {pw} 0", "", "A vacation lasts at least 1 day."),
        ("emergo subscribe 101 {me} {pw}", "101", "plays on board 101"),
        ("reset abcd-efgh-ijkl NEWpass99", "forgot USERID", "No password reset is waiting"),
    ],
)
def test_a_refusal_in_the_players_language(
    german: Mailer, subject: str, german_text: str, english_text: str
) -> None:
    bob = subject.format(me="bob", other="alice", pw="bobpw")
    said = flat(german.one(bob, sender="bob@example.org").body)
    assert english_text not in said, said
    assert german_text in said, said
    alice = subject.format(me="alice", other="bob", pw="alicepw")
    english = flat(german.one(alice, sender="alice@example.org").body)
    assert english_text in english, english
