"""By mail: what a player does for themselves: close their account (``delete``), get a
new password by mail (``forgot``, ``reset``), block a player, keep private notes, and the
errors that show what was typed.

Through the real listener (smtplib), the real workers and command layer, and a real aiosmtpd
relay receiving every mail the server sends; SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.support.post import ALICE, BOB, RATED_OPENING, Post, challenge, subjects, text

CAROL = "carol@example.org"
PW = {"alice": "alice-pw1", "bob": "bob-pw1", "carol": "carol-pw1"}


def play(post: Post, board: int, *moves: tuple[str, str]) -> None:
    """Each (userid, move) in turn; every one must be played."""
    for userid, notation in moves:
        mails = post.send(f"emergo move {board} {userid} {PW[userid]} {notation}",
                          f"{userid}@example.org")  # fmt: skip
        assert mails and not any("Error" in str(m["Subject"]) for m in mails), subjects(mails)


# --- delete ------------------------------------------------------------------------------


def test_delete_resigns_running_games_keeps_finished_ones_and_frees_the_addresses(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    finished = challenge(post)
    play(post, finished, *zip(("alice", "bob") * 4, RATED_OPENING, strict=True))
    post.send(f"emergo resign {finished} alice {PW['alice']}", ALICE)
    running = challenge(post)

    mails = post.send(f"delete bob {PW['bob']}", BOB)
    answer = next(m for m in mails if str(m["To"]) == BOB and "closed" in str(m["Subject"]))
    assert str(answer["Subject"]) == "Emergo: account bob closed"
    assert f"You resigned your active game on board {running}." in text(answer)
    over = [m for m in mails if str(m["Subject"]) == f"Emergo Board {running} Game over"]
    assert over and "bob closed their account and resigned this game." in text(over[0])

    # The finished game stays, the name shown as closed.
    assert "bob (closed)" in text(post.one("emergo standings", ALICE))
    assert "bob (closed)" in text(post.one(f"emergo show {finished}", ALICE))
    # A closed userid cannot log in.
    refused = post.one(f"vacation bob {PW['bob']} 3", BOB)
    assert str(refused["Subject"]) == "Emergo error"
    # Its address is free for a new account.
    post.signup("bobby", "bobby-pw1", BOB)


def test_delete_with_a_wrong_password_closes_nothing(make_post: Callable[..., Post]) -> None:
    post = make_post()
    board = challenge(post)
    reply = post.one("delete bob Bob-pw1", BOB)
    assert str(reply["Subject"]) == "Emergo error"
    assert text(reply).startswith("Wrong password for bob.")
    # bob still plays.
    play(post, board, ("alice", RATED_OPENING[0]), ("bob", RATED_OPENING[1]))
