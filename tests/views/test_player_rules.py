"""The rules for players (docs/rules-for-players.md and its translations,
rules-for-players.LANG.md): every picture is a position the rules engine reads, and its move a
legal one, so that the pictures cannot teach a wrong rule; every translation has the same
pictures in the same order, and the mailed rules fit 72 columns in every language."""

from __future__ import annotations

import re

import pytest

from pbm_emergo.rules import Position
from pbm_emergo.views import i18n
from pbm_emergo.views.player_rules import (
    Figure,
    anchored,
    blocks,
    figure_text,
    player_rules_file,
    player_rules_markdown,
    player_rules_text,
    read_figure,
)
from pbm_emergo.views.templating import render
from pbm_emergo.web.rules import slug


def figures() -> list[Figure]:
    return [b for b in blocks(player_rules_markdown("en")) if isinstance(b, Figure)]


def test_the_rules_have_the_four_pictures_and_each_move_is_legal() -> None:
    found = figures()
    assert len(found) >= 4
    assert found[0].position == Position()  # the diamond, empty
    moves = [f.move for f in found if f.move]
    assert {"e4xe6", "c3xc5xe5xg5", "e3xe5"} <= set(moves)
    for figure in found:
        assert figure.caption
        if figure.move:
            assert figure.move in [str(m) for m in figure.position.legal_moves()]
            assert figure.after == figure.position.play(figure.move)


def test_a_picture_with_an_illegal_move_or_an_unknown_field_is_refused() -> None:
    with pytest.raises(ValueError):
        read_figure("position: o 0 0 30 e4=o1,e5=x1,i5=x1\nmove: e4-e3\n")
    with pytest.raises(ValueError):
        read_figure("position: o 12 12 0 -\ncolour: red\n")


def test_the_mail_text_draws_each_picture_as_the_diamond() -> None:
    capture = next(f for f in figures() if f.move == "e4xe6")
    text = figure_text(capture)
    assert "Before:" in text and "After e4xe6:" in text and "  e6: o x\n" in text
    with_links = player_rules_text("https://emergo.example.org/")
    assert "(https://emergo.example.org/rules/engine)" in with_links
    assert "](" not in player_rules_text(None)


TRANSLATED = ("nl", "de", "fr")


def test_every_language_has_its_document_with_the_same_pictures_in_the_same_order() -> None:
    english = figures()
    for locale in TRANSLATED:
        assert player_rules_file(locale) == f"rules-for-players.{locale}.md"
        markdown = player_rules_markdown(locale)
        assert markdown != player_rules_markdown("en")
        found = [b for b in blocks(markdown) if isinstance(b, Figure)]
        assert [(f.position, f.move) for f in found] == [(f.position, f.move) for f in english]
        for figure, original in zip(found, english, strict=True):
            assert figure.caption and figure.caption != original.caption  # translated
            if figure.move:  # legal against the rules engine, as in English
                assert figure.move in [str(m) for m in figure.position.legal_moves()]
                assert figure.after == figure.position.play(figure.move)


def test_a_translation_keeps_the_english_headings_anchors() -> None:
    english = [slug(h) for h in re.findall(r"^## (.+)$", player_rules_markdown("en"), re.M)]
    for locale in TRANSLATED:
        text, anchors = anchored(player_rules_markdown(locale))
        assert list(anchors.values()) == english
        assert "{#" not in text


def test_the_reply_language_picks_the_document_english_when_there_is_none() -> None:
    with i18n.speaking("de"):
        german = player_rules_text(None)
    assert german.startswith("So spielt man Emergo\n")
    assert "Vor dem Zug:" in german and "Nach e4xe6:" in german
    assert "\nDas Brett\n---------\n" in german and "{#" not in german
    with i18n.speaking("nl"):
        assert player_rules_text(None).startswith("Zo speel je Emergo\n")
    with i18n.speaking("fr"):
        assert "Après c3xc5xe5xg5 :" in player_rules_text(None)
    with i18n.speaking("en"):
        assert player_rules_text(None).startswith("How to play Emergo\n")
    assert player_rules_markdown("xx") == player_rules_markdown("en")  # no document: English


@pytest.mark.parametrize("locale", ("en", *TRANSLATED))
def test_the_mailed_rules_fit_72_columns_in_every_language(locale: str) -> None:
    with i18n.speaking(locale):
        mail = render(
            "rules.txt.j2",
            address="emergo-server-of-a-long-name@mail.example.org",
            rules=player_rules_text("https://emergo.example.org/"),
        )
    assert all(len(line) <= 72 for line in mail.splitlines())
    assert "'emergo move BOARD USERID PASSWORD MOVE'" in " ".join(mail.split())
    assert "](" not in mail
