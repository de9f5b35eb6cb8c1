"""The small ways to turn the server's texts against a player, replayed through the listener.

Each test mails the attack to the running server (real SMTP on 127.0.0.1, real workers and
outbox sender, a recording relay) and shows that it no longer works: a password that is an
ordinary word of the server's own text is masked only where the reply quotes what the sender
wrote, an error never quotes a cut or lower-cased form of a word that may be a password,
numbers in commands are ASCII digits only, and ``help PASSWORD`` stores nothing of it.
"""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import select

from pbm_emergo.db.models import OutboundText, Player
from pbm_emergo.game.words import MASK
from tests.support.leaks import assert_nowhere
from tests.support.post import ALICE, BOB, Post, challenge, text

PASSWORD = "alice-pw1"  # alice's password (see make_post)


@pytest.fixture
def post(make_post: object, caplog: pytest.LogCaptureFixture) -> Post:
    caplog.set_level(logging.DEBUG, logger="pbm_emergo")
    caplog.set_level(logging.INFO)
    return make_post()  # type: ignore[operator, no-any-return]


def test_a_word_that_may_be_a_password_leaves_the_servers_own_words_alone(post: Post) -> None:
    """Before, a hidden word that is also a word of the reply's template was masked in the
    template too ("There is no ******** ..."), telling the sender (and anyone reading the
    mail) what the hidden word was."""
    reply = post.one("emergo knows", ALICE)
    assert reply["Subject"] == "Emergo error"
    assert "There is no command 'emergo ********'." in text(reply)
    assert "These are the commands this server knows:" in text(reply)
    assert "'emergo knows'" not in text(reply)

    board = challenge(post)
    reply = post.one(f"emergo move {board} alice Board e4", ALICE)  # a wrong password
    assert reply["Subject"] == f"Emergo Board {board} Error"
    assert f"emergo move {board} alice {MASK} e4" in text(reply)


def test_a_verified_password_that_is_a_template_word_is_not_masked_in_the_template(
    post: Post,
) -> None:
    """Alice's password is "Board": her move's board mails keep their own "Board" (to Bob
    too, who must not learn her password from where the masks fall)."""
    board = challenge(post)
    post.one(f"change password alice {PASSWORD} Board", ALICE)
    mails = post.send(f"emergo move {board} alice Board e4", ALICE, body="Board games!")
    to_bob = [m for m in mails if str(m["To"]) == BOB]
    assert to_bob and str(to_bob[0]["Subject"]).startswith(f"Emergo Board {board}")
    assert MASK not in str(to_bob[0]["Subject"])
    assert f"Board {board}" in text(to_bob[0])
    assert "Board games!" not in text(to_bob[0])  # the comment line with the password


def test_an_error_never_quotes_the_cut_form_of_a_word_that_may_be_a_password(
    post: Post, caplog: pytest.LogCaptureFixture
) -> None:
    """A long secret where a board number goes: the error quoted its first 40 characters,
    which the scrubber (looking for the whole word) missed."""
    secret = "Correct-Horse-Battery-Staple-" * 2
    reply = post.one(f"emergo notify alice {PASSWORD} {secret}", ALICE)
    assert "'********' is not a board number" in text(reply)
    assert_nowhere(post, caplog, secret[:40], secret[:40].lower())


@pytest.mark.parametrize("days", ["٣", "３", "³", "३"])
def test_a_number_in_another_script_is_not_a_number_of_days(post: Post, days: str) -> None:
    """int("٣") == 3 in Python: ``vacation alice PW ٣`` took three days of vacation."""
    reply = post.one(f"vacation alice {PASSWORD} {days}", ALICE)
    assert reply["Subject"] == "Emergo error"
    assert "Write a number of days or off" in text(reply)
    with post.sessions() as session:
        alice = session.scalars(select(Player).where(Player.userid == "alice")).one()
        assert alice.vacation_until is None


def test_a_board_number_in_another_script_names_no_board(post: Post) -> None:
    board = challenge(post)
    arabic = str(board).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
    reply = post.one(f"emergo show {arabic}", ALICE)
    assert reply["Subject"] == "Emergo error"
    assert f"Board {board}" not in text(reply)


def test_help_with_the_password_stores_nothing_of_it(
    post: Post, caplog: pytest.LogCaptureFixture
) -> None:
    """``help PASSWORD`` answered "There is no help topic 'pw-...'" (lower-cased, so the
    scrubber missed it) and stored the password in outbound_messages."""
    for subject in (f"help {PASSWORD.upper()}", f"emergo help {PASSWORD}", f"help {PASSWORD}"):
        reply = post.one(subject, ALICE)
        assert "There is no help topic '********'" in text(reply)
    with post.sessions() as session:
        bodies = list(session.scalars(select(OutboundText.raw)))
    assert bodies and not any(PASSWORD.encode() in b.lower() for b in bodies if b)
    assert_nowhere(post, caplog, PASSWORD, PASSWORD.upper())
