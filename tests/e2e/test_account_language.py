"""Mails to a player in the player's language, whoever caused them: a vacation, its end and
a reminder for a player who chose German; a new board's first mail to a Dutch-speaking
opponent while the challenger's own copy stays English; a message and a chat in each
recipient's language. Command words and Subjects stay English. Through the real listener,
SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from tests.support.clock import Clock
from tests.support.post import ALICE, BOB, Post, challenge, text


def flat(body: str) -> str:
    return " ".join(body.split())


def test_a_german_player_gets_vacation_notices_and_reminders_in_german(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    board = challenge(post, "--nagtime=1 --forfeittime=5")
    post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)

    [started] = post.send("vacation bob bob-pw1 1", BOB)
    until = clock.now + timedelta(days=1)
    assert str(started["Subject"]) == f"Emergo: bob on vacation until {until:%Y-%m-%d}"
    assert "bob ist 1 Tag im Urlaub, bis " in flat(text(started))
    assert "  vacation bob PASSWORD off\n" in text(started)

    # The scheduler tells bob the vacation is over, in German, with a German date.
    clock.now = until + timedelta(minutes=1)
    post.wait_for_scheduler()
    post.wait_for_scheduler()
    [over] = [m for m in post.received_by(BOB) if "is over" in str(m["Subject"])]
    assert str(over["Subject"]) == "Emergo: the vacation of bob is over"
    body = flat(text(over))
    assert body.startswith("bob, dein Urlaub endete am ")
    assert f"{until:%Y}" in body and f"{until:%Y-%m-%d}" not in body  # the locale's date
    assert "Urlaub übrig für " in body
    assert "  vacation bob PASSWORD DAYS\n" in text(over)

    # The reminder after it, in German too.
    clock.now += timedelta(days=1, minutes=1)
    post.wait_for_scheduler()
    nags = [m for m in post.received_by(BOB) if "Nag:" in str(m["Subject"])]
    assert nags and str(nags[-1]["Subject"]) == f"Nag: Emergo Board {board} bob"
    nag = text(nags[-1])
    assert nag.startswith(f"bob, du bist auf Emergo-Brett {board} seit ")
    assert f"  emergo move {board} bob PASSWORD MOVE\n" in nag
    assert all(len(line) <= 72 for line in nag.splitlines())
    # alice chose nothing: her mails stay English.
    assert all("Urlaub" not in text(m) for m in post.received_by(ALICE))


def test_a_challenge_reaches_a_dutch_opponent_in_dutch(make_post: Callable[..., Post]) -> None:
    post = make_post()
    post.one("language bob bob-pw1 nl", BOB)
    mails = {str(m["To"]): m for m in post.send("emergo challenge alice bob", ALICE)}
    dutch, english = text(mails[BOB]), text(mails[ALICE])
    assert str(mails[BOB]["Subject"]) == str(mails[ALICE]["Subject"])  # Subjects stay English
    assert "Een nieuwe partij: alice speelt Ohs (o) en begint, bob speelt Eks (x)." in flat(dutch)
    assert "A new game: alice plays Ohs (o) and moves first, bob plays Eks (x)." in flat(english)
    assert "Een nieuwe partij" not in english


def test_a_message_and_a_chat_reach_each_player_in_their_language(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    mails = post.send("message alice alice-pw1 bob", ALICE, body="Good luck!")
    sent = {str(m["To"]): m for m in mails}
    assert flat(text(sent[ALICE])).startswith("Your message went to bob.")
    german = text(sent[BOB])
    assert flat(german).startswith("alice schickt dir diese Nachricht über den Emergo-Server ")
    assert "  Good luck!\n" in german  # the text as written

    board = challenge(post)
    chats = {
        str(m["To"]): m
        for m in post.send(f"emergo chat {board} alice alice-pw1", ALICE, body="Hello")
    }
    assert text(chats[BOB]).startswith(f"alice schreibt auf Emergo-Brett {board} ")
    assert text(chats[ALICE]).startswith(f"alice writes on Emergo Board {board} ")
    # bob's answer: his own copy in German, alice's in English.
    answers = {
        str(m["To"]): m for m in post.send(f"emergo chat {board} bob bob-pw1", BOB, body="Thanks")
    }
    assert text(answers[BOB]).startswith(f"bob schreibt auf Emergo-Brett {board} ")
    assert text(answers[ALICE]).startswith(f"bob writes on Emergo Board {board} ")


def test_challenge_settings_and_refusals_in_the_senders_language(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 nl", BOB)
    seeking = post.one("emergo seek bob bob-pw1 2", BOB)
    assert str(seeking["Subject"]) == "Emergo seek: bob"
    assert flat(text(seeking)).startswith("bob zoekt nog 2 partijen.")
    assert flat(text(post.one("emergo reject bob bob-pw1", BOB))).startswith(
        "bob weigert elke uitdaging."
    )
    # The challenger is refused in the challenger's language (English), bob is not told.
    refused = post.one("emergo challenge alice bob", ALICE)
    assert "bob does not accept challenges at the moment" in flat(text(refused))
    # A Dutch sender's bad address is refused in Dutch (the word masked: it might be a
    # password typed in the wrong place).
    wrong = flat(text(post.one("change address bob bob-pw1 not-an-address", BOB)))
    assert wrong.startswith("'********' is geen mailadres.")
