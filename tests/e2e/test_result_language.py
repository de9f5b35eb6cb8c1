"""How a game ended, in the reader's language, by mail: a move sent to a finished board is
refused with the game's result in German for a German player, in English for the other.
Through the real listener, SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.post import ALICE, BOB, Post, challenge, text
from tests.support.text import flat


def test_a_move_on_a_finished_board_is_refused_with_the_result_in_german(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    board = challenge(post)
    post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    post.send(f"emergo move {board} bob bob-pw1 e6", BOB)
    post.send(f"emergo resign {board} alice alice-pw1", ALICE)

    german = flat(text(post.one(f"emergo move {board} bob bob-pw1 e4", BOB)))
    over = f"Die Partie auf Brett {board} ist vorbei: bob (Eks) gewinnt: alice hat aufgegeben."
    assert over in german
    english = flat(text(post.one(f"emergo move {board} alice alice-pw1 e4", ALICE)))
    assert f"The game on board {board} is over: bob (Eks) wins: alice resigned." in english
