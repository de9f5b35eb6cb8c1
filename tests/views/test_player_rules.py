"""The rules for players (docs/rules-for-players.md): every picture is a position the rules
engine reads, and its move a legal one, so that the pictures cannot teach a wrong rule."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import Position
from pbm_emergo.views.player_rules import (
    Figure,
    blocks,
    figure_text,
    player_rules_markdown,
    player_rules_text,
    read_figure,
)


def figures() -> list[Figure]:
    return [b for b in blocks(player_rules_markdown()) if isinstance(b, Figure)]


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
