"""``help rules`` in the player's language: the rules for players of their language's
document (docs/rules-for-players.LANG.md), its pictures as the diamond, the lines around it
translated, command words English. Through the real listener, SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.post import BOB, Post, text


def test_a_player_who_chose_german_gets_the_german_rules(make_post: Callable[..., Post]) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    answer = post.one("help rules", BOB)
    assert str(answer["Subject"]) == "Emergo rules"  # Subjects stay English
    rules = text(answer)
    assert rules.startswith("So spielt man Emergo\n")
    for heading in ("Das Brett", "Schlagen", "Türme und Gefangene", "Deine Züge aufschreiben"):
        assert f"\n{heading}\n{'-' * len(heading)}\n" in rules
    assert "Vor dem Zug:" in rules and "Nach c3xc5xe5xg5:" in rules
    assert "  e6: o x\n" in rules  # the pictures are the board mails' diamond
    words = " ".join(rules.split())
    assert "So schickst du einen Zug: schreibe 'emergo move BOARD USERID PASSWORD MOVE'" in words
    assert "How to play" not in rules and "How to send a move" not in rules
    assert all(len(line) <= 72 for line in rules.splitlines())


def test_a_player_who_chose_nothing_gets_the_english_rules(make_post: Callable[..., Post]) -> None:
    post = make_post()
    rules = text(post.one("help rules", BOB))
    assert rules.startswith("How to play Emergo\n")
    assert "Before:" in rules and "How to send a move: write 'emergo move " in rules
    dutch = text(post.one("help rules", BOB, headers={"Content-Language": "nl"}))
    assert dutch.startswith("Zo speel je Emergo\n") and "Voor de zet:" in dutch
