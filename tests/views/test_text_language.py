"""The language of a mail's own words: told only when the detector is sure and the language
is one of ours; and a reply's language tells it last, never for a mail that logs in."""

from __future__ import annotations

import pytest

from pbm_emergo.commands.text import CommandText
from pbm_emergo.views import i18n
from pbm_emergo.views.text_language import language_of_text


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Hallo, ich bin neu hier und möchte gerne Emergo spielen. Wie fange ich an?", "de"),
        ("Hallo, ik ben nieuw hier en wil graag Emergo spelen. Hoe begin ik?", "nl"),
        ("Bonjour, je suis nouveau ici et j'aimerais jouer à Emergo. Comment commencer ?", "fr"),
        ("Hello, I am new here and would like to play Emergo. How do I begin?", "en"),
    ],
)
def test_a_sentence_in_one_of_our_languages_is_told(text: str, language: str) -> None:
    assert language_of_text(text) == language


@pytest.mark.parametrize(
    "text",
    [
        "emergo move 101 alice alice-pw1 e4",  # command words alone
        "Guten Tag!",  # too short to tell
        "Danke, gg",
        "Hola, soy nuevo aquí y me gustaría jugar a Emergo. ¿Cómo empiezo?",  # not ours
        "",
    ],
)
def test_commands_short_text_and_other_languages_tell_nothing(text: str) -> None:
    assert language_of_text(text) is None


def test_the_free_text_leaves_the_commands_out() -> None:
    read = CommandText.read("help", "emergo games alice\nBonjour à tous, je débute ici.\n")
    assert read.free_text == "Bonjour à tous, je débute ici."
    from_body = CommandText.read("Eine Frage", "help\nWie fange ich an?")
    assert from_body.line == "help"
    assert from_body.free_text == "Eine Frage\nWie fange ich an?"
    several = CommandText.read("multiple", "help\nemergo games alice")
    assert several.free_text == ""


def _never() -> str | None:
    raise AssertionError("the text was read")


def test_the_text_decides_last_and_never_after_a_login() -> None:
    with i18n.speaking(i18n.Undecided(lambda: None, None, told=lambda: "de")):
        assert i18n.current() == "de"
    with i18n.speaking(i18n.Undecided(lambda: "fr", None, told=_never)):
        assert i18n.current() == "fr"  # the player's choice
    with i18n.speaking(i18n.Undecided(lambda: None, "nl", told=_never)):
        assert i18n.current() == "nl"  # the mail's Content-Language
    with i18n.speaking(i18n.Undecided(_never, None, told=_never)):
        i18n.settle(None)  # logged in as a player who chose none
        assert i18n.current() == "en"
