"""By mail: what a player does for themselves: close their account (``delete``), get a
new password by mail (``forgot``, ``reset``), block a player, keep private notes, and the
errors that show what was typed.

Through the real listener (smtplib), the real workers and command layer, and a real aiosmtpd
relay receiving every mail the server sends; SQLite and PostgreSQL.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import timedelta

import pytest

from tests.support.clock import Clock
from tests.support.leaks import assert_nowhere
from tests.support.post import ALICE, BOB, RATED_OPENING, Post, challenge, subjects, text
from tests.support.text import flat

CAROL = "carol@example.org"
PW = {"alice": "alice-pw1", "bob": "bob-pw1", "carol": "carol-pw1"}
RESET_CODE = re.compile(r"reset ([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}) NEWPASSWORD")


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


# --- forgot, reset ------------------------------------------------------------------------


def reset_code(mail: object) -> str:
    match = RESET_CODE.search(text(mail))  # type: ignore[arg-type]
    assert match is not None, text(mail)  # type: ignore[arg-type]
    return match[1]


def test_forgot_answers_the_same_whether_or_not_the_userid_exists(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    stranger = "eve@example.org"
    real = post.send("forgot bob", stranger)
    made_up = post.send("forgot nobody", stranger)
    # The stranger gets one answer either way, saying the same; the code goes to bob only.
    [real_answer] = [m for m in real if str(m["To"]) == stranger]
    [made_up_answer] = made_up
    assert flat(text(real_answer)).replace("bob", "X") == flat(text(made_up_answer)).replace(
        "nobody", "X"
    )
    assert str(real_answer["Subject"]) == "Emergo: forgotten password"
    assert subjects(real) == [
        (BOB, "Emergo: a code to set the password of bob"),
        (stranger, "Emergo: forgotten password"),
    ]
    assert RESET_CODE.search(text(real_answer)) is None


def test_reset_sets_the_password_once_and_tells_every_registered_address(
    make_post: Callable[..., Post], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="pbm_emergo")
    post = make_post()
    board = challenge(post)
    [code_mail] = [m for m in post.send("forgot password bob", BOB) if "code" in str(m["Subject"])]
    code = reset_code(code_mail)
    mails = post.send(f"reset {code} NewBob-pw2", "eve@example.org")
    assert subjects(mails) == [
        (BOB, "Emergo: password of bob changed"),
        ("eve@example.org", "Emergo: password of bob changed"),
    ]
    assert "in a mail from eve@example.org" in text(mails[0])
    # The new password plays, the old one does not.
    assert text(post.one(f"emergo move {board} bob {PW['bob']} e4", BOB)).startswith(
        "Wrong password for bob."
    )
    play(post, board, ("alice", RATED_OPENING[0]))
    mails = post.send(f"emergo move {board} bob NewBob-pw2 {RATED_OPENING[1]}", BOB)
    assert not any("Error" in str(m["Subject"]) for m in mails), subjects(mails)
    # A code works once.
    used = post.one(f"reset {code} Other-pw3", BOB)
    assert str(used["Subject"]) == "Emergo error"
    assert "and a code works once" in text(used)
    assert "  reset ******** ********\n" in text(used)
    # Neither the code nor the new password is kept or logged anywhere but in the code mail.
    assert_nowhere(post, caplog, "NewBob-pw2")


def test_a_wrong_or_expired_code_sets_nothing(make_post: Callable[..., Post], clock: Clock) -> None:
    post = make_post()
    wrong = post.one("reset AAAA-BBBB-CCCC-DDDD NewBob-pw2", BOB)
    assert text(wrong).startswith("No password reset is waiting for this code")
    [code_mail] = [m for m in post.send("forgot bob", BOB) if "code" in str(m["Subject"])]
    clock.now += timedelta(days=1, minutes=1)
    expired = post.one(f"reset {reset_code(code_mail)} NewBob-pw2", BOB)
    assert text(expired).startswith("This code expired at")
    # The old password still works.
    assert "Error" not in str(post.one(f"vacation bob {PW['bob']} 2", BOB)["Subject"])


def test_codes_for_one_userid_are_capped_and_the_answer_does_not_change(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    stranger = "eve@example.org"
    for _ in range(3):
        assert len(post.send("forgot bob", stranger)) == 2
    capped = post.send("forgot bob", stranger)
    assert subjects(capped) == [(stranger, "Emergo: forgotten password")]


# --- block, unblock ------------------------------------------------------------------------


def test_a_blocked_player_is_refused_as_anyone_is_by_a_player_who_rejects_challenges(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.signup("carol", PW["carol"], CAROL)
    # The refusal every challenger gets from a player who rejects all challenges ...
    post.send(f"emergo reject alice {PW['alice']}", ALICE)
    generic = text(post.one("emergo challenge carol alice", CAROL)).splitlines()[0]
    post.send(f"emergo accept alice {PW['alice']}", ALICE)
    # ... is the one a blocked player gets.
    answer = post.one(f"block alice {PW['alice']} carol", ALICE)
    assert str(answer["Subject"]) == "Emergo: block carol"
    blocked = post.one("emergo challenge carol alice", CAROL)
    assert str(blocked["Subject"]) == "Emergo error"
    assert text(blocked).splitlines()[0] == generic
    assert generic == "alice does not accept challenges at the moment, so no board was started."
    # bob still challenges alice; after unblock, carol does too.
    assert len(post.send("emergo challenge bob alice", BOB)) == 2
    post.one(f"unblock alice {PW['alice']} carol", ALICE)
    assert len(post.send("emergo challenge carol alice", CAROL)) == 2


def test_a_blocked_players_messages_and_chat_do_not_reach_the_blocker(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.signup("carol", PW["carol"], CAROL)
    board = int(str(post.send("emergo challenge carol alice", CAROL)[0]["Subject"]).split()[-2])
    post.one(f"block alice {PW['alice']} carol", ALICE)
    # carol is answered as if alice got them; alice gets nothing.
    sent = post.send(f"message carol {PW['carol']} alice bob", CAROL, body="Hello")
    assert subjects(sent) == [(BOB, "Message from carol"), (CAROL, "Emergo: message sent")]
    assert "alice" in text(sent[1])
    chat = post.send(f"emergo chat {board} carol {PW['carol']}", CAROL, body="Good luck")
    assert subjects(chat) == [(CAROL, f"Emergo chat {board} carol")]
    # alice's own chat still reaches carol: a block is one way.
    chat = post.send(f"emergo chat {board} alice {PW['alice']}", ALICE, body="Thanks")
    assert sorted(str(m["To"]) for m in chat) == [ALICE, CAROL]


def test_block_errors(make_post: Callable[..., Post]) -> None:
    post = make_post()
    assert text(post.one(f"block alice {PW['alice']} alice", ALICE)).startswith(
        "You cannot block yourself."
    )
    assert text(post.one(f"unblock alice {PW['alice']} bob", ALICE)).startswith(
        "You do not block that player."
    )
    assert text(post.one(f"block alice {PW['alice']} nobody", ALICE)).startswith(
        "There is no player 'nobody'."
    )
    assert text(post.one("block alice Alice-pw1 bob", ALICE)).startswith("Wrong password")


# --- emergo note ---------------------------------------------------------------------------


def test_notes_are_shown_to_their_writer_only(make_post: Callable[..., Post]) -> None:
    post = make_post()
    board = challenge(post)
    play(post, board, ("alice", RATED_OPENING[0]))
    kept = post.one(f"emergo note {board} alice {PW['alice']} watch the centre", ALICE)
    assert str(kept["Subject"]) == f"Emergo Board {board} note"
    post.one(f"emergo note {board} alice {PW['alice']}", ALICE, body="bob likes\nedges\n")
    mine = "Your notes (only you see them):\n  after move 1: watch the centre\n"
    shown = text(post.one(f"emergo show {board}", ALICE))
    assert mine in shown and "  after move 1: bob likes\n    edges\n" in shown
    assert mine in text(post.one(f"emergo record {board}", ALICE))
    # Nobody else sees them: not bob, not a stranger, not in the board mails.
    for sender in (BOB, "eve@example.org"):
        for command in (f"emergo show {board}", f"emergo record {board}"):
            assert "watch the centre" not in text(post.one(command, sender))
    mails = post.send(f"emergo move {board} bob {PW['bob']} {RATED_OPENING[1]}", BOB)
    assert mails and not any("watch the centre" in text(m) for m in mails)


def test_note_errors(make_post: Callable[..., Post]) -> None:
    post = make_post()
    board = challenge(post)
    empty = post.one(f"emergo note {board} alice {PW['alice']}", ALICE)
    assert str(empty["Subject"]) == f"Emergo Board {board} Error"
    assert text(empty).startswith("The note is empty")
    wrong = post.one(f"emergo note {board} alice Alice-pw1 a note", ALICE)
    assert text(wrong).startswith("Wrong password for alice.")
    missing = post.one(f"emergo note 999 alice {PW['alice']} a note", ALICE)
    assert "999" in text(missing).splitlines()[0]


# --- errors that show what was typed --------------------------------------------------------


def test_a_wrong_password_says_case_sensitive_and_forgot_in_two_lines(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = challenge(post)
    reply = post.one(f"emergo move {board} alice ALICE-PW1 e4", ALICE)
    assert text(reply) == (
        "Wrong password for alice.\n\n"
        "Your command:\n"
        f"  emergo move {board} alice ******** e4\n\n"
        # Nothing proves the mail came from alice's address (no authserv_id), so it locks
        # nothing and no count is given; the DMARC explanation is left out.
        "Passwords are case-sensitive.\n"
        "Forgotten it? Send 'forgot alice': a code to set a new password is\n"
        "mailed to its registered addresses.\n\n"
        "Send 'help' for the list of commands.\n"
    )


def test_a_mistyped_command_is_echoed_with_only_the_password_masked(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = challenge(post)
    reply = text(post.one(f"emergo mvoe {board} bob bob-pw1 e4", BOB))
    assert reply.startswith("There is no command 'emergo mvoe'. Did you mean 'emergo move'?\n")
    assert f"  emergo mvoe {board} bob ******** e4\n" in reply
    challenge_typo = text(post.one("emergo challenge alice robot9", ALICE))
    assert "  emergo challenge alice robot9\n" in challenge_typo
