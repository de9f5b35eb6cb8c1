"""A new player's first hour, by mail through the listener: typos answered with what was
meant, a mail with no command told where to start, the whole game in every board mail,
help that fits a mail window, a new board that says how to decline it, a welcome that
names the robots, and a newcomer in the standings."""

from __future__ import annotations

from collections.abc import Callable

from pbm_emergo.rules import Game
from tests.support.post import ALICE, BOB, Post, challenge, text
from tests.support.text import flat


def test_a_typo_is_answered_with_the_command_meant(make_post: Callable[..., Post]) -> None:
    post = make_post()
    board = challenge(post)
    reply = post.one(f"emergo mvoe {board} bob bob-pw1 d4", BOB)
    assert str(reply["Subject"]) == "Emergo error"
    first = text(reply).splitlines()[0]
    assert first == "There is no command 'emergo mvoe'. Did you mean 'emergo move'?"
    assert f"  emergo mvoe {board} bob ******** d4\n" in text(reply)
    assert "bob-pw1" not in text(reply)


def test_an_unknown_player_is_echoed_and_similar_names_are_offered(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    reply = post.one("emergo challenge alice robot9", ALICE)
    assert flat(text(reply)).startswith(
        "There is no player 'robot9'. Players with similar names: robot1, robot2, robot3."
    )
    assert "  emergo challenge alice robot9\n" in text(reply)


def test_a_mail_with_no_command_is_told_where_to_start(make_post: Callable[..., Post]) -> None:
    post = make_post()
    reply = post.one("Hi there", "newcomer@example.org")
    assert str(reply["Subject"]) == "Emergo: start here"
    body = text(reply)
    assert "signup YOURID PASSWORD" in body and "emergo challenge YOURID robot1" in body
    assert "Hi" not in body and "there" not in body


def test_help_fits_a_mail_window(make_post: Callable[..., Post]) -> None:
    post = make_post()
    for topic in ("move", "queue", "challenge"):
        lines = text(post.one(f"help {topic}", ALICE)).splitlines()
        assert max(len(line) for line in lines) <= 72, topic


def test_the_new_board_says_how_to_decline_and_every_board_mail_has_the_whole_game(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    mails = post.send("emergo challenge alice bob", ALICE)
    board = int(str(mails[0]["Subject"]).split()[-2])
    to_bob = next(m for m in mails if str(m["To"]) == BOB)
    assert f"To decline this game, send 'emergo resign {board} YOURID PASSWORD'" in " ".join(
        text(to_bob).split()
    )
    position = Game().position
    played: list[str] = []
    for n in range(12):
        move = str(position.legal_moves()[0])
        position = position.play(move)
        played.append(move)
        userid, sender = ("alice", ALICE) if n % 2 == 0 else ("bob", BOB)
        last = post.send(f"emergo move {board} {userid} {userid}-pw1 {move}#{n + 1}", sender)
    listed = text(last[0]).split("Moves:\n")[1].split("\n\n")[0]
    assert [w for w in listed.split() if not w.endswith(".")] == played
    assert listed.startswith("  1. ")


def test_the_welcome_names_the_robots_and_a_newcomer_is_no_inactive_player(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    welcome = [m for m in post.received_by(ALICE) if "welcome" in str(m["Subject"])]
    assert welcome and "  emergo challenge alice robot1\n" in text(welcome[0])
    challenge(post)
    table = text(post.one("emergo standings", ALICE))
    provisional = table.split("Provisional players")[1].split("Inactive players")[0]
    assert "alice" in provisional and "bob" in provisional
