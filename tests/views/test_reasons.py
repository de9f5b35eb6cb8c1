"""The reasons of the rules, the game and the commands: each code has a message in the
catalogs whose English is the reason's own sentence, and says its values in every locale."""

from __future__ import annotations

import pytest

from pbm_emergo.commands import reasons as command_reasons
from pbm_emergo.game import reasons as game_reasons
from pbm_emergo.rules import IllegalMoveError, InvalidMoveError, Position
from pbm_emergo.rules import reasons as rule_reasons
from pbm_emergo.rules.reasons import Reason
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import MESSAGES, said

TEXTS = {**rule_reasons.TEXTS, **game_reasons.TEXTS, **command_reasons.TEXTS}
# Words a language writes as English does (Dutch says "3 mails" too).
SAME_AS_ENGLISH = {("mails", "nl")}


def sample(code: str, num: int) -> Reason:
    """A reason of ``code`` with a value for each placeholder of its text."""
    text = TEXTS[code]
    names = set()
    for form in text if isinstance(text, tuple) else (text,):
        names |= {part.split(")")[0] for part in form.split("%(")[1:]}
    values: dict[str, str | int] = {name: f"<{name}>" for name in names}
    values["num"] = num
    return Reason(code, tuple(values.items()), text)


def test_the_codes_of_every_layer_are_distinct_and_all_have_a_message() -> None:
    sizes = len(rule_reasons.TEXTS) + len(game_reasons.TEXTS) + len(command_reasons.TEXTS)
    assert len(TEXTS) == sizes
    assert set(MESSAGES) == set(TEXTS)


@pytest.mark.parametrize("num", [1, 3])
@pytest.mark.parametrize("code", sorted(TEXTS))
def test_in_english_a_reason_is_said_as_its_own_sentence(code: str, num: int) -> None:
    reason = sample(code, num)
    with i18n.speaking("en"):
        assert said(reason) == str(reason)


@pytest.mark.parametrize("lang", ["nl", "de", "fr"])
@pytest.mark.parametrize("code", sorted(TEXTS))
def test_every_reason_is_translated_with_its_values(code: str, lang: str) -> None:
    reason = sample(code, 3)
    with i18n.speaking(lang):
        text = said(reason)
    assert (text != str(reason)) is ((code, lang) not in SAME_AS_ENGLISH)
    for name, value in reason.values:
        if name != "num":
            assert str(value) in text, (code, name)


def test_the_rules_reason_is_said_in_german_with_its_cells() -> None:
    position = Position()
    with pytest.raises(IllegalMoveError) as illegal:
        position.play("e5")  # the centre on the first move of the game
    assert str(illegal.value) == "White may not enter on e5 on the first move of the game."
    with i18n.speaking("de"):
        assert "e5" in said(illegal.value.reason or "")
        assert "Ohs" in said(illegal.value.reason or "")


def test_a_reason_inside_a_reason_is_said_in_the_same_language() -> None:
    inner = rule_reasons.reason("land_occupied", start="c3", end="e3")
    outer = rule_reasons.reason("not_a_route", move="c3xe3", why=inner)
    assert str(outer) == "c3xe3 is not a capture route: c3xe3 would land on e3, which is occupied."
    with i18n.speaking("de"):
        text = said(outer)
    assert text.startswith("c3xe3 ") and "besetzt" in text
    assert said(inner) not in text  # said in English outside, in German inside


def test_a_move_that_is_no_move_says_so_in_english_as_before() -> None:
    with pytest.raises(InvalidMoveError) as invalid:
        Position().parse_move("a1")
    assert str(invalid.value) == "a1 is not a cell of the Emergo board."
    assert invalid.value.reason == rule_reasons.reason("not_a_cell", cell="a1")
