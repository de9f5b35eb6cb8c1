"""``board USERID PASSWORD list|diagram`` by mail: the text part of the player's board mails
says the position in words (for a screen reader) instead of drawing the diamond, and only
for that player. Through the real listener, SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

from pbm_emergo.rules import Position, position_words
from tests.support.post import ALICE, BOB, Post, challenge, text


def test_a_player_who_asks_for_the_list_gets_the_position_in_words(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    answer = post.one("board bob bob-pw1 list", BOB)
    assert str(answer["Subject"]) == "Emergo board list for bob"
    assert "Board style for bob: list." in text(answer)
    assert "Row e: empty\n" in text(answer)
    assert "bob-pw1" not in text(answer)

    board = challenge(post)
    mails = {str(m["To"]): m for m in post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)}
    spoken, drawn = text(mails[BOB]), text(mails[ALICE])
    after = Position().play("e4")
    assert "The position in words, row by row:\n" + position_words(after, "e4") in spoken
    assert "  e4: Ohs man\n" in spoken and "Last move: e4, by Ohs\n" in spoken
    assert f"Eks to move, {len(after.legal_moves())} legal moves\n" in spoken
    assert " E - " not in spoken  # no diamond for bob
    assert " E - " in drawn and "Row e:" not in drawn  # alice keeps the diamond
    assert "  Key: . empty cell, o one Ohs man, x one Eks man;" in drawn
    # Both get the same HTML picture.
    assert mails[BOB].get_body(("html",)) is not None
    for mail in mails.values():
        assert all(len(line) <= 72 for line in text(mail).splitlines())

    # emergo show from bob's address: as his board mails; from alice's: the diamond.
    shown = text(post.one(f"emergo show {board}", BOB))
    assert "  e4: Ohs man\n" in shown and " E - " not in shown
    assert " E - " in text(post.one(f"emergo show {board}", ALICE))

    # An error mail with the board (an illegal move): in words too.
    error = post.one(f"emergo move {board} bob bob-pw1 e4", BOB)
    assert "Error" in str(error["Subject"])
    assert "  e4: Ohs man\n" in text(error) and " E - " not in text(error)

    back = post.one("board bob bob-pw1 diagram", BOB)
    assert str(back["Subject"]) == "Emergo board diagram for bob"
    mails = {str(m["To"]): m for m in post.send(f"emergo move {board} bob bob-pw1 e6", BOB)}
    assert " E - " in text(mails[BOB]) and "Row e:" not in text(mails[BOB])


def test_a_word_other_than_list_or_diagram_is_refused_and_changes_nothing(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    refused = post.one("board bob bob-pw1 braille", BOB)
    assert str(refused["Subject"]) == "Emergo error"
    assert "Write list or diagram after the password" in text(refused)
    assert "bob-pw1" not in text(refused)
    board = challenge(post)
    mails = {str(m["To"]): m for m in post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)}
    assert " E - " in text(mails[BOB])
