"""Replies in the language of a mail's own words, where it can be told, for a sender who has
chosen none and whose mail has no ``Content-Language``; the command words tell nothing, and a
choice or the header wins over the text. Through the real listener, SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.post import ALICE, BOB, Post, challenge, text
from tests.support.signup import confirmation_code

GERMAN = "Hallo, ich bin neu hier und möchte gerne Emergo spielen. Wie fange ich an?"
FRENCH = "Bonjour, je suis nouveau ici et j'aimerais bien jouer à Emergo avec vous."


def test_help_with_a_german_sentence_comes_in_german(make_post: Callable[..., Post]) -> None:
    post = make_post()
    helped = text(post.one("help", ALICE, body=GERMAN))
    assert helped.startswith("Hilfe zum Emergo-Mailserver ")
    told = text(post.one("help language", ALICE, body=GERMAN))
    assert "wo sie sich erkennen lässt" in " ".join(told.split())
    assert all(len(line) <= 72 for line in told.splitlines())
    # Only command words, or a sentence too short to tell: English.
    assert text(post.one("help", ALICE, body="emergo games alice")).startswith(
        "Help for the Emergo mail server "
    )
    assert text(post.one("help", ALICE, body="Danke!")).startswith(
        "Help for the Emergo mail server "
    )
    # The mail's Content-Language wins over its text.
    dutch = text(post.one("help", ALICE, body=GERMAN, headers={"Content-Language": "nl"}))
    assert dutch.startswith("Hulp bij de Emergo-mailserver ")


def test_a_chosen_language_wins_over_the_text(make_post: Callable[..., Post]) -> None:
    post = make_post()
    post.one("language bob bob-pw1 fr", BOB)
    chosen = text(post.one("help", BOB, body=GERMAN))
    assert chosen.startswith("Aide du serveur de courriel Emergo ")


def test_a_move_is_answered_as_the_player_chose_not_as_its_comment(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = challenge(post)
    mails = {
        str(m["To"]): m
        for m in post.send(f"emergo move {board} alice alice-pw1 e4", ALICE, body=FRENCH)
    }
    assert "Moves:\n" in text(mails[ALICE])  # alice chose nothing: English, as before
    assert FRENCH in " ".join(text(mails[BOB]).split())  # the comment goes on as written


def test_a_signup_in_german_makes_a_german_player(make_post: Callable[..., Post]) -> None:
    post = make_post()
    carol = "carol@example.org"
    code_mail = post.one("signup carol carol-pw1", carol, body=GERMAN)
    post.one(f"confirm {confirmation_code(text(code_mail))}", carol)
    # The player's language now, whatever later mails are written in.
    assert text(post.one("help", carol)).startswith("Hilfe zum Emergo-Mailserver ")


def test_a_mail_without_a_command_is_answered_in_its_language(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    answer = post.one("Bonjour, comment est-ce que je peux jouer ici ?", "dora@example.org")
    assert text(answer).startswith("Ce serveur fait ")
    assert "aucune commande" in " ".join(text(answer).split())
