"""Password guessing turned against players, replayed through the real listener.

- Wrong passwords in mail that only *names* a player's registered address (a forged From;
  nothing proves it came from there) never lock the player out of that address; only mail
  our MTA proves (DMARC pass) can.
- One mail full of wrong passwords for many userids gets only a few of them hashed
  (argon2), and causes only a few "someone is guessing" notices; a sender that keeps
  guessing gets nothing hashed for the rest of the hour, while a password the server
  already verified still passes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from email.message import EmailMessage

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import players
from pbm_emergo.db.models import OTHER_SENDERS, LoginFailure
from tests.support.clock import Clock
from tests.support.hashing import CountingHasher
from tests.support.post import BOB, Post, challenge, subjects, text
from tests.support.text import flat

EVE = "eve@evil.example"
AUTHSERV_ID = "mx.emergo.test"
GUESSING = "Emergo notice: someone is guessing the password of"


def results(verdict: str) -> dict[str, str]:
    """Our MTA's verdict on a mail from example.org (where alice and bob live)."""
    return {
        "Authentication-Results": f"{AUTHSERV_ID}; spf={verdict} smtp.mailfrom=example.org; "
        f"dmarc={verdict} header.from=example.org"
    }


def add_victims(
    sessions: sessionmaker[Session], clock: Clock, count: int, *, earlier_failures: int = 0
) -> list[str]:
    """``count`` players v01, v02 ... (password vNN-right, address vNN@example.net), made in
    the database; with ``earlier_failures``, that many wrong passwords from addresses they
    have not registered counted for each within the last minutes."""
    userids = [f"v{n:02d}" for n in range(1, count + 1)]
    with sessions.begin() as session:
        for userid in userids:
            player = players.create_player(
                session, userid, f"{userid}-right", [f"{userid}@example.net"], clock.now
            )
            if earlier_failures:
                session.add(
                    LoginFailure(
                        player_id=player.id,
                        sender_key=OTHER_SENDERS,
                        count=earlier_failures,
                        window_start=clock.now - timedelta(minutes=10),
                        last_failure_at=clock.now - timedelta(minutes=1),
                    )
                )
    return userids


def report_lines(mails: list[EmailMessage], sender: str) -> str:
    [report] = [m for m in mails if str(m["To"]) == sender]
    return text(report)


# --- lock-outs of a registered address only by proven mail ---------------------------------


def test_forged_wrong_passwords_in_a_players_name_do_not_lock_out_their_address(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    """No authserv_id: nothing proves who wrote a From. Before, five wrong passwords in
    bob's name locked bob out of his own address for an hour, renewable at will."""
    post = make_post()
    board = challenge(post)
    post.send(f"emergo move {board} alice alice-pw1 e4", "alice@example.org")
    for n in range(8):
        [reply] = [m for m in post.send(f"emergo move {board} bob guess{n} e6", BOB)]
        assert flat(text(reply)).startswith("Wrong password for bob.")
        assert "Passwords are case-sensitive. Forgotten it? Send 'forgot bob'" in flat(
            text(reply)
        )
        # The DMARC paragraph comes only with a mail that locks the others out.
        assert "DMARC" not in text(reply)
    # bob, from his registered address, plays on.
    mails = post.send(f"emergo move {board} bob bob-pw1 e6", BOB)
    assert sorted(str(m["Subject"]) for m in mails) == [f"Emergo Board {board} alice"] * 2
    with db_sessions() as session:
        keys = session.scalars(select(LoginFailure.sender_key)).all()
    assert BOB not in keys


def test_only_mail_proven_by_dmarc_can_lock_a_registered_address(
    make_post: Callable[..., Post],
) -> None:
    post = make_post(authserv_id=AUTHSERV_ID)
    # A domain without DMARC ("none") proves nothing either: no lock.
    for n in range(6):
        reply = post.one(f"change password bob guess{n} bob-pw2", BOB, headers=results("none"))
        assert "DMARC" not in text(reply)
    mails = post.send("change password bob bob-pw1 bob-pw2", BOB, headers=results("pass"))
    assert subjects(mails) == [(BOB, "Emergo: password of bob changed")]
    # bob's own proven mail still locks his address after five wrong passwords (his typing).
    for n in range(4):
        post.one(f"change password bob typo{n} bob-pw3", BOB, headers=results("pass"))
    mails = post.send("change password bob typo4 bob-pw3", BOB, headers=results("pass"))
    assert subjects(mails) == [
        (BOB, "Emergo error"),
        (BOB, "Emergo notice: bob locked for bob@example.org"),
    ]
    locked = post.one("change password bob bob-pw2 bob-pw3", BOB, headers=results("pass"))
    assert flat(text(locked)).startswith("The userid bob is locked for mail from bob@example.org")


# --- password checks capped before hashing -----------------------------------------------


def test_one_mail_of_wrong_passwords_for_thirty_userids_is_hashed_three_times(
    make_post: Callable[..., Post],
    db_sessions: sessionmaker[Session],
    clock: Clock,
    hasher: CountingHasher,
) -> None:
    """Before, one 1.1 kB `multiple` cost 30 argon2 checks (twice: ahead of its write
    transaction and in it) and told every one of 30 players that someone is guessing."""
    post = make_post()
    # Someone has been guessing all thirty from other addresses: one more wrong password
    # each would lock them and tell their players.
    victims = add_victims(db_sessions, clock, 30, earlier_failures=19)
    hasher.checked = 0
    lines = "\n".join(f"change password {v} guess-{v} newpass1" for v in victims)
    mails = post.send("multiple", EVE, body=lines)
    report = report_lines(mails, EVE)
    assert report.count("Wrong password for") == 3
    assert "This mail already had 3 wrong passwords, so no further password in it is" in flat(
        report
    )
    assert hasher.checked <= 2 * 3
    # Three players hear of it, not thirty.
    notices = [m for m in mails if str(m["Subject"]).startswith(GUESSING)]
    assert sorted(str(m["To"]) for m in notices) == [
        "v01@example.net",
        "v02@example.net",
        "v03@example.net",
    ]
    assert len(mails) == 1 + 3


def test_a_sender_guessing_for_an_hour_gets_nothing_more_hashed(
    make_post: Callable[..., Post],
    db_sessions: sessionmaker[Session],
    clock: Clock,
    hasher: CountingHasher,
) -> None:
    post = make_post()
    v01, v02, v03, v04 = add_victims(db_sessions, clock, 4)
    # Three wrong passwords a mail (the most one mail gets checked), for one userid after
    # another so that none of them locks: ten within the hour.
    for victim in (v01, v02, v03):
        lines = "\n".join(f"change password {victim} guess{n} newpass1" for n in range(3))
        assert (
            report_lines(post.send("multiple", EVE, body=lines), EVE).count("Wrong password for")
            == 3
        )
    assert text(post.one(f"change password {v04} guess0 newpass1", EVE)).startswith(
        "Wrong password"
    )
    # From now on no password from eve is hashed for a userid eve has not registered.
    hasher.checked = 0
    refused = post.one(f"change password {v04} {v04}-right newpass1", EVE)
    assert flat(text(refused)).startswith(
        f"Mail from {EVE} had 10 wrong passwords within the last hour"
    )
    assert "nothing was done for v04" in flat(text(refused))
    assert hasher.checked == 0
    # A password the server has verified lately still passes without a hash: v04's player
    # used it from their own address.
    changed = post.send(f"change password {v04} {v04}-right {v04}-new1", "v04@example.net")
    assert subjects(changed) == [("v04@example.net", "Emergo: password of v04 changed")]
    mails = post.send(f"change password {v04} {v04}-new1 {v04}-new2", EVE)
    assert subjects(mails) == [
        (EVE, "Emergo: password of v04 changed"),
        ("v04@example.net", "Emergo notice: v04"),
    ]
    # An hour after eve's last wrong password, eve's passwords are checked again.
    clock.now += timedelta(hours=1, minutes=1)
    hasher.checked = 0
    assert text(post.one(f"change password {v01} guess9 newpass1", EVE)).startswith(
        "Wrong password"
    )
    assert hasher.checked == 1
