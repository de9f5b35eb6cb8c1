"""Attacks on signup and on the addresses of others, replayed through the listener.

- A forged From on `signup` (or `change address`) registers nobody's address: the address
  gets one mail, its code, and nothing else (no welcome, no subscription's board mails, no
  challenges) until the code comes back. Mail our MTA proved (DMARC "pass") still signs up
  at once.
- A stranger asking codes for someone's address cannot keep its owner from getting one:
  the owner's own request is always answered, with the code.
- Userids that read like another player's or the server's own, and addresses at the
  server's own domain or of role mailboxes, are refused.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import AddressConfirmation, Player
from tests.support.post import ALICE, BOB, Post, challenge, subjects, text
from tests.support.signup import code_subject, confirmation_code
from tests.support.text import flat

EVE = "eve@evil.example"
VICTIM = "victim@stranger.example"
AUTHSERV_ID = "mx.emergo.test"


def results(verdict: str, domain: str) -> dict[str, str]:
    """The Authentication-Results header our MTA adds: DMARC's ``verdict`` for ``domain``."""
    return {
        "Authentication-Results": f"{AUTHSERV_ID}; spf=none smtp.mailfrom={domain}; "
        f"dmarc={verdict} header.from={domain}"
    }


def registered(sessions: sessionmaker[Session], userid: str) -> list[str]:
    with sessions() as session:
        player = session.scalars(select(Player).where(Player.userid_key == userid)).one()
        return [a.address for a in player.addresses]


def test_a_forged_signup_mails_the_victim_its_code_and_nothing_else(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post()
    # Eve writes From the victim's address: the answer goes there, and it is the code.
    [code_mail] = post.send("signup mallet mallet-pw1", VICTIM)
    assert (str(code_mail["To"]), str(code_mail["Subject"])) == (VICTIM, code_subject("mallet"))
    assert "confirm " + confirmation_code(text(code_mail)) in text(code_mail)
    assert "If you did not send that command, ignore this mail" in text(code_mail)
    assert registered(db_sessions, "mallet") == []
    # With the account's password eve subscribes to every board and has games played ...
    subscribed = post.one("emergo subscribe all mallet mallet-pw1", EVE)
    assert subscribed["Subject"] != "Emergo error", text(subscribed)
    board = challenge(post)
    post.send(f"emergo move {board} alice alice-pw1 e4#1", ALICE)
    # ... and challenges the account, from her own account.
    post.signup("eve", "eve-pw-1", EVE)
    refused = post.one("emergo challenge eve mallet", EVE)
    assert refused["Subject"] == "Emergo error"
    assert text(refused).startswith("mallet has not confirmed an address yet")
    # The victim got the code and nothing else.
    assert subjects(post.received_by(VICTIM)) == [(VICTIM, code_subject("mallet"))]


def test_a_forged_change_address_registers_nothing_without_the_code(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post()
    post.signup("eve", "eve-pw-1", EVE)
    mails = post.send(f"change address eve eve-pw-1 {VICTIM}", VICTIM)
    [answer] = [m for m in mails if str(m["To"]) == VICTIM]
    assert "confirm " + confirmation_code(text(answer)) in text(answer)
    assert registered(db_sessions, "eve") == [EVE]  # kept until the victim sends the code
    post.send("emergo subscribe all eve eve-pw-1", EVE)
    started = post.send("emergo challenge alice bob", ALICE)
    assert sorted(str(m["To"]) for m in started) == [ALICE, BOB, EVE]  # eve's address only
    assert [str(m["Subject"]) for m in post.received_by(VICTIM)] == [
        "Emergo: addresses of eve changed"  # the answer to the forged mail, with the code
    ]


def test_mail_our_mta_proved_signs_up_at_once_and_unproven_mail_needs_the_code(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post(authserv_id=AUTHSERV_ID)
    welcome = post.one("signup carol carol-pw1", "carol@example.org",
                       headers=results("pass", "example.org"))  # fmt: skip
    assert welcome["Subject"] == "Emergo: welcome carol"
    assert registered(db_sessions, "carol") == ["carol@example.org"]
    # A domain without DMARC proves nothing (nor does a forged header of another MTA).
    for userid, headers in (
        ("dave", results("none", "nodmarc.example")),
        ("erin", {"Authentication-Results": "mx.other; dmarc=pass header.from=nodmarc.example"}),
    ):
        sender = f"{userid}@nodmarc.example"
        code_mail = post.one(f"signup {userid} {userid}-pw1", sender, headers=headers)
        assert code_mail["Subject"] == code_subject(userid)
        assert registered(db_sessions, userid) == []
        welcome = post.one(f"confirm {confirmation_code(text(code_mail))}", sender)
        assert welcome["Subject"] == f"Emergo: welcome {userid}"
        assert registered(db_sessions, userid) == [sender]


def test_a_stranger_cannot_keep_the_owner_from_getting_a_code(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post()
    # Eve has a code mailed to the victim, then tries again and again, from many addresses.
    assert len(post.send(f"signup vic0 vic-pw-1 {VICTIM}", EVE)) == 2
    refused = post.one(f"signup vic1 vic-pw-1 {VICTIM}", EVE)
    assert text(refused).startswith(f"A confirmation code for {VICTIM} was asked from your")
    for n in (2, 3):
        assert len(post.send(f"signup vic{n} vic-pw-1 {VICTIM}", f"eve{n}@evil.example")) == 2
    refused = post.one(f"signup vic4 vic-pw-1 {VICTIM}", "eve4@evil.example")
    assert text(refused).startswith(f"{VICTIM} was mailed 3 confirmation codes")
    assert f"send the command from {VICTIM} itself" in flat(text(refused))
    # Forged requests "from" the victim do not count against the owner either.
    for n in range(3):
        post.send(f"signup forged{n} vic-pw-1", VICTIM)
    # The owner signs up from the address: the answer is the code, and it works.
    welcome = post.signup("victim", "victim-pw1", VICTIM)
    assert "Registered address:\n  " + VICTIM in text(welcome)
    assert registered(db_sessions, "victim") == [VICTIM]
    # The victim got at most three codes asked by others, and the answers to its own mail.
    asked_by_others = [m for m in post.received_by(VICTIM)
                       if "please confirm your address" in str(m["Subject"])]  # fmt: skip
    assert len(asked_by_others) == 3
    with db_sessions() as session:
        waiting = session.scalars(select(AddressConfirmation.requested_by)).all()
    assert sorted(waiting).count(VICTIM) == 3  # the forged ones, waiting for nobody


@pytest.mark.parametrize(
    ("userid", "why"),
    [
        ("Bob_", "too much like the existing player 'bob'"),
        ("b-o-b", "too much like the existing player 'bob'"),
        ("B0B", "too much like the existing player 'bob'"),
        ("aIice", "too much like the existing player 'alice'"),
        ("robot4", "looks like one of the server's own"),
        ("R0bot_x", "looks like one of the server's own"),
        ("Admin2", "looks like one of the server's own"),
        ("root-1", "looks like one of the server's own"),
        ("pbmserv", "is a reserved word"),
        ("sign_up", "is a reserved word"),
    ],
)
def test_lookalike_userids_are_refused(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session], userid: str, why: str
) -> None:
    post = make_post()
    reply = post.one(f"signup {userid} some-pw-1", "carol@example.org")
    assert reply["Subject"] == "Emergo error"
    assert why in text(reply).splitlines()[0]
    with db_sessions() as session:
        made = session.scalars(select(Player).where(Player.userid_key == userid.lower())).all()
    assert made == []


def test_userids_that_only_look_a_little_alike_are_welcome(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    for userid in ("bobby", "alice2", "roberta", "rooter"):
        post.signup(userid, "some-pw-1", f"{userid}@example.org")


@pytest.mark.parametrize(
    "address",
    [
        "pbmserv+x@emergo.test",
        "root@emergo.test",
        "anyone@lists.emergo.test",
        "MAILER-DAEMON@example.net",
        "postmaster@example.net",
        "abuse@example.net",
        "no-reply@example.net",
        "noreply+games@example.net",
    ],
)
def test_special_addresses_are_refused(make_post: Callable[..., Post], address: str) -> None:
    post = make_post()
    for command, sender in ((f"signup carol carol-pw1 {address}", "carol@example.org"),
                            (f"change address bob bob-pw1 {address}", BOB)):  # fmt: skip
        reply = post.one(command, sender)
        assert reply["Subject"] == "Emergo error"
        first = text(reply).splitlines()[0]
        assert "at this server's own domain" in first or "is a role mailbox" in first
    assert post.received_by(address) == []
