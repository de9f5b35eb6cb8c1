"""Accounts: through the real listener (smtplib), the real workers, command layer and
scheduler, and a real aiosmtpd relay receiving every mail the server sends.

- Wrong passwords from elsewhere never lock a player out of their registered address; the
  player is told once; no game is lost on time while its player is locked out.
- The server mails no stranger: an address other than the sender's gets a code and nothing
  else until someone sends `confirm CODE`.
- `signup` and `change address` refuse the server's own address and invalid domains.
- With `authserv_id` set, mail whose DMARC result for its From domain is `fail` (by our own
  MTA's Authentication-Results header) cannot start a game nor pass as a registered address.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from email.message import EmailMessage

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import models
from tests.support.clock import Clock
from tests.support.mail import SERVER_ADDRESS
from tests.support.post import ALICE, BOB, Post, challenge, subjects, text
from tests.support.text import flat

EVE = "eve@evil.example"
VICTIM = "victim@stranger.example"
AUTHSERV_ID = "mx.emergo.test"


# --- lock-out without denial of service ---------------------------------------------------


def test_wrong_passwords_from_elsewhere_never_lock_out_the_player(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = challenge(post)
    post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    # Someone guesses bob's password from an address of their own, then from many others.
    guesses = []
    for n in range(24):
        sender = EVE if n < 6 else f"eve{n}@evil.example"
        mails = post.send(f"emergo move {board} bob guess{n} e6", sender)
        [answer] = [m for m in mails if str(m["To"]) == sender]
        guesses.append(answer)
    # bob, from his registered address, plays on.
    mails = post.send(f"emergo move {board} bob bob-pw1 e6", BOB)
    assert subjects(mails) == [
        (ALICE, f"Emergo Board {board} alice"),
        (BOB, f"Emergo Board {board} alice"),
    ]
    assert text(guesses[4]).startswith("Wrong password for bob.")
    assert "are refused until" in text(guesses[4])
    assert text(guesses[5]).startswith("The userid bob is locked for mail from eve@evil.example")
    # After 20 wrong passwords from addresses bob has not registered, all of those are
    # refused without a look at the password.
    assert text(guesses[-1]).startswith("The userid bob is locked until")
    assert "from addresses not registered for it" in flat(text(guesses[-1]))
    # bob was told once that someone is guessing, and nothing else about it.
    notices = [m for m in post.received_by(BOB) if "notice" in str(m["Subject"])]
    assert subjects(notices) == [(BOB, "Emergo notice: someone is guessing the password of bob")]
    assert "eve@evil.example" in text(notices[0])
    assert "Your registered address is not affected" in text(notices[0])
    for n in range(24):
        assert f"guess{n}" not in text(notices[0])


def test_no_game_is_lost_on_time_while_its_player_is_locked_out(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post(authserv_id=AUTHSERV_ID)
    board = challenge(post, "--nagtime=2 --forfeittime=3")
    post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    start = clock.now
    clock.now = start + timedelta(days=2, minutes=1)
    post.delivered_to(BOB, "Nag:")
    # Just before bob's time runs out, five wrong passwords from his address lock it.
    clock.now = start + timedelta(days=3, minutes=-10)
    for n in range(5):
        post.send(f"emergo move {board} bob guess{n} e6", BOB, headers=results("pass"))
    locked = post.one(f"emergo move {board} bob bob-pw1 e6", BOB, headers=results("pass"))
    assert text(locked).startswith("The userid bob is locked")
    # His time runs out while he is locked out: no forfeit (a day of vacation instead) ...
    clock.now = start + timedelta(days=3, minutes=10)
    post.wait_for_scheduler()
    assert (post.board(board).status, post.board(board).outcome_reason) == ("active", None)
    # ... nor within a day after the lock ended (another day) ...
    clock.now = start + timedelta(days=4, minutes=30)
    post.wait_for_scheduler()
    assert post.board(board).status == "active"
    # ... but after that, the clock counts again.
    clock.now = start + timedelta(days=5, minutes=31)
    post.wait_for_scheduler()
    assert (post.board(board).status, post.board(board).outcome_reason) == (
        "finished", "forfeit"
    )


# --- the server must not mail strangers -----------------------------------------------------


def code_of(mail: EmailMessage) -> str:
    match = re.search(r"confirm ([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})", text(mail))
    assert match is not None, text(mail)
    return match[1]


def test_an_address_given_by_someone_else_gets_a_code_and_nothing_else(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post()
    mails = post.send(f"signup vic vic-pw-1 {VICTIM}", EVE)
    assert subjects(mails) == [
        (EVE, "Emergo: welcome vic"),
        (VICTIM, "Emergo: please confirm your address for vic"),
    ]
    assert "victim@stranger.example" in text(mails[0]) and "confirm CODE" in text(mails[0])
    code = code_of(mails[1])
    assert code not in text(mails[0])  # only the address's owner learns the code
    # Challenges and board mails with eve's comment would go to vic's address; they don't.
    mails = post.send("emergo challenge vic bob", EVE, body="Buy cheap pills at ...")
    assert all(str(m["To"]) != VICTIM for m in mails)
    post.send("emergo challenge bob vic", BOB, body="Buy cheap pills at ...")
    post.send("emergo move 101 vic vic-pw-1 e4", EVE)
    assert subjects(post.received_by(VICTIM)) == [
        (VICTIM, "Emergo: please confirm your address for vic"),
    ]
    # Only a hash of the code is stored.
    with db_sessions() as session:
        stored = session.execute(select(models.AddressConfirmation.__table__)).all()
    assert code not in repr(stored) and code.replace("-", "") not in repr(stored)
    # A wrong code changes nothing; the right one (as typed by a person) registers the address.
    assert text(post.one("confirm AAAA-BBBB-CCCC-DDDD", VICTIM)).startswith(
        "No address is waiting for this code"
    )
    confirmed = post.one(f"confirm {code.lower().replace('-', '')}", VICTIM)
    # vic's first address: the confirmation is vic's welcome.
    assert confirmed["Subject"] == "Emergo: welcome vic"
    assert "Registered address:\n  victim@stranger.example" in text(confirmed)
    # Used once only.
    assert text(post.one(f"confirm {code}", VICTIM)).startswith("No address is waiting")
    # From now on vic's board mails go there.
    mails = post.send("emergo challenge bob vic", BOB)
    assert sorted(str(m["To"]) for m in mails) == [BOB, VICTIM]


def test_a_changed_address_is_confirmed_before_it_gets_board_mails(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = challenge(post)
    new = "bob@new.example"
    mails = post.send(f"change address bob bob-pw1 {new}", BOB)
    assert subjects(mails) == [
        (BOB, "Emergo: addresses of bob changed"),
        (new, "Emergo: please confirm your address for bob"),
    ]
    assert "Until one of the new addresses below is confirmed" in text(mails[0])
    # Until then bob's board mails still go to his old address, and none to the new one.
    mails = post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    assert sorted(str(m["To"]) for m in mails) == [ALICE, BOB]
    # A second request within the day mails the new address no second code.
    assert subjects(post.send(f"change address bob bob-pw1 {new}", BOB)) == [
        (BOB, "Emergo: addresses of bob changed"),
    ]
    assert len(post.received_by(new)) == 1
    code = code_of(post.received_by(new)[0])
    mails = post.send(f"confirm {code}", new)
    assert subjects(mails) == [
        (BOB, "Emergo: addresses of bob changed"),
        (new, "Emergo: addresses of bob changed"),
    ]
    mails = post.send(f"emergo move {board} bob bob-pw1 e6", new)
    assert sorted(str(m["To"]) for m in mails) == [ALICE, new]


# --- bad addresses --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "why"),
    [
        (SERVER_ADDRESS, "is an address at this server's own domain"),
        ("Postmaster@emergo.test", "is an address at this server's own domain"),
        ("x@-.", "is not a domain name"),
        ("x@example..org", "is not a mail address"),
        ("x@-example.org", "is not a domain name"),
        ("x@example.123", "is not a domain name"),
    ],
)
def test_signup_and_change_address_refuse_unusable_addresses(
    make_post: Callable[..., Post], address: str, why: str
) -> None:
    post = make_post()
    for command, sender in ((f"signup carol carol-pw1 {address}", "carol@example.org"),
                            (f"change address bob bob-pw1 {address}", BOB)):  # fmt: skip
        reply = post.one(command, sender)
        assert reply["Subject"] == "Emergo error"
        assert why in flat(text(reply).split("\n\n")[0])
    assert post.received_by(address) == []
    assert "Emergo: welcome carol" not in [str(m["Subject"]) for m in post.relay.handler.messages()]


# --- Authentication-Results ----------------------------------------------------------------


def results(verdict: str, authserv_id: str = AUTHSERV_ID) -> dict[str, str]:
    return {
        "Authentication-Results": f"{authserv_id}; dkim=none (no signature); "
        f"spf=pass smtp.mailfrom=example.org; dmarc={verdict} (p=reject dis=none) "
        "header.from=example.org"
    }


def test_mail_that_fails_dmarc_is_not_trusted_for_its_address(
    make_post: Callable[..., Post],
) -> None:
    post = make_post(authserv_id=AUTHSERV_ID)
    refused = post.one("emergo challenge alice bob", ALICE, headers=results("fail"))
    assert refused["Subject"] == "Emergo error"
    assert "failed the DMARC check" in text(refused)
    # A header with another authserv-id is anyone's: it neither condemns nor clears.
    started = post.send("emergo challenge alice bob", ALICE, headers=results("fail", "mx.other"))
    assert sorted(str(m["To"]) for m in started) == [ALICE, BOB]
    spoofed = {"Authentication-Results": "mx.other; dmarc=pass header.from=example.org"}
    spoofed.update(results("fail"))
    assert post.one("emergo challenge alice bob", ALICE, headers=spoofed)["Subject"] == (
        "Emergo error"
    )
    assert len(post.send("emergo challenge alice bob", ALICE, headers=results("pass"))) == 2
    # Forged mail in bob's name is not his registered address: its wrong passwords count with
    # the other strangers', and cannot lock bob's own address.
    for n in range(6):
        reply = post.one(f"change password bob guess{n} newpass1", BOB, headers=results("fail"))
        assert "failed the DMARC check" in text(reply)
    mails = post.send("change password bob bob-pw1 bob-pw2", BOB, headers=results("pass"))
    assert subjects(mails) == [(BOB, "Emergo: password of bob changed")]
    # A signup in mail that failed DMARC does not register its From address unconfirmed:
    # the answer is the address's code, and nothing else.
    mails = post.send("signup carol carol-pw1", "carol@example.org", headers=results("fail"))
    assert subjects(mails) == [
        ("carol@example.org", "Emergo: confirm your address for carol"),
    ]
    assert "confirm " + code_of(mails[0]) in text(mails[0])


def test_without_an_authserv_id_the_headers_are_not_read(make_post: Callable[..., Post]) -> None:
    post = make_post()
    mails = post.send("emergo challenge alice bob", ALICE, headers=results("fail"))
    assert sorted(str(m["To"]) for m in mails) == [ALICE, BOB]
