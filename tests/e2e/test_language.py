"""Replies in the player's language by mail: ``language USERID PASSWORD de`` makes help,
errors and board mails German for that player only, command words staying English; a mail's
``Content-Language`` speaks for a sender who has chosen none. Through the real listener,
SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from tests.support.clock import Clock
from tests.support.post import ALICE, BOB, Post, challenge, text
from tests.support.signup import confirmation_code


def test_a_player_who_sets_german_gets_german_replies(make_post: Callable[..., Post]) -> None:
    post = make_post()
    answer = post.one("language bob bob-pw1 de", BOB)
    assert str(answer["Subject"]) == "Emergo: bob liest Antworten auf Deutsch"
    assert "bob liest Antworten ab jetzt auf Deutsch" in text(answer)
    assert "  language bob PASSWORD en\n" in text(answer)  # the command words stay English
    assert "bob-pw1" not in text(answer)

    helped = text(post.one("help", BOB))
    assert helped.startswith("Hilfe zum Emergo-Mailserver ")
    assert "Befehle für das Konto:\n" in helped
    assert "  emergo move " in helped  # usages as they are written
    assert "      die Sprache deiner Antworten: en, nl, de oder fr\n" in helped
    assert all(len(line) <= 72 for line in helped.splitlines())

    wrong = text(post.one("timezone bob wrong-pw UTC", BOB))
    assert "Falsches Passwort für bob." in wrong
    assert "Bei Passwörtern zählt Groß- und Kleinschreibung. Vergessen? " in " ".join(wrong.split())
    assert "Schicke 'help' für die Liste der Befehle." in wrong

    usage = text(post.one("language bob bob-pw1", BOB))
    assert "Schreibe es so:\n  language userid password LANG\n" in usage
    assert usage.startswith("Der Befehl language braucht diese Argumente: language")

    board = challenge(post)
    mails = {str(m["To"]): m for m in post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)}
    german, english = text(mails[BOB]), text(mails[ALICE])
    assert "Züge:\n" in german and "Letzter Zug: " in german
    assert "Moves:\n" in english and "Züge" not in english  # alice chose nothing
    # The help in English for alice, as before.
    assert text(post.one("help", ALICE)).startswith("Help for the Emergo mail server ")

    # Back to English.
    post.one("language bob bob-pw1 en", BOB)
    assert text(post.one("help", BOB)).startswith("Help for the Emergo mail server ")


def test_content_language_speaks_until_the_player_chooses(make_post: Callable[..., Post]) -> None:
    post = make_post()
    dutch = text(post.one("help", ALICE, headers={"Content-Language": "nl-NL"}))
    assert dutch.startswith("Hulp bij de Emergo-mailserver ")
    french = text(post.one("help", ALICE, headers={"Content-Language": "fr, en"}))
    assert french.startswith("Aide du serveur de courriel Emergo ")
    assert text(post.one("help", ALICE)).startswith("Help for the Emergo mail server ")
    # A choice wins over the header.
    post.one("language alice alice-pw1 de", ALICE)
    chosen = text(post.one("help", ALICE, headers={"Content-Language": "nl"}))
    assert chosen.startswith("Hilfe zum Emergo-Mailserver ")


def test_an_unknown_language_is_refused_and_changes_nothing(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    refused = text(post.one("language bob bob-pw1 klingon", BOB))
    assert "Write en, nl, de or fr after the password" in refused
    assert "bob-pw1" not in refused
    assert text(post.one("help", BOB)).startswith("Help for the Emergo mail server ")


def test_signup_with_a_language_and_with_a_content_language(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    carol, dave = "carol@example.org", "dave@example.org"
    code_mail = post.one("signup carol carol-pw1 language=nl", carol)
    assert "language=nl" not in str(code_mail["To"])
    post.one(f"confirm {confirmation_code(text(code_mail))}", carol)
    assert text(post.one("help", carol)).startswith("Hulp bij de Emergo-mailserver ")

    # No option: the signup mail's Content-Language stays the player's language.
    code_mail = post.one("signup dave dave-pw1", dave, headers={"Content-Language": "fr-CA"})
    post.one(f"confirm {confirmation_code(text(code_mail))}", dave)
    assert text(post.one("help", dave)).startswith("Aide du serveur de courriel Emergo ")

    refused = text(post.one("signup erin erin-pw1 language=tlh", "erin@example.org"))
    assert "Write language=en, language=nl, language=de or language=fr." in refused


def test_a_reminder_comes_in_the_players_language(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    board = challenge(post, "--nagtime=1 --forfeittime=3")
    post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    clock.now += timedelta(days=1, minutes=1)
    post.wait_for_scheduler()
    [nag] = [m for m in post.received_by(BOB) if "Nag:" in str(m["Subject"])]
    body = text(nag)
    assert body.startswith(f"bob, du bist auf Emergo-Brett {board} seit 1 Tag am Zug.\n")
    assert f"  emergo move {board} bob PASSWORD MOVE\n" in body  # the command words English
    assert "Züge:\n" in body
    assert all(len(line) <= 72 for line in body.splitlines())


def test_an_unknown_command_is_named_in_the_players_language(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 fr", BOB)
    refused = text(post.one("emergo mvoe 101 bob bob-pw1 e4", BOB))
    assert refused.replace("\n", " ").startswith(
        "Il n'y a pas de commande 'emergo mvoe'. Vouliez-vous dire 'emergo move'\u00a0?"
    )
    assert "bob-pw1" not in refused
    english = text(post.one("emergo mvoe 101 alice alice-pw1 e4", ALICE))
    assert english.startswith("There is no command 'emergo mvoe'. Did you mean 'emergo move'?")
