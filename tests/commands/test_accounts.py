"""Account commands through `process` on a real migrated database."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import Player
from tests.support.mailer import Mailer
from tests.support.text import flat


def player(factory: sessionmaker[Session], userid: str) -> Player:
    with factory() as session:
        found = session.scalars(select(Player).where(Player.userid_key == userid)).one()
        _ = list(found.addresses)
        return found


def test_signup_stores_an_argon2id_hash_and_never_echoes_the_password(mailer: Mailer) -> None:
    reply = mailer.one("signup Alice s3cretpw", sender="alice@example.org", sender_auth="pass")
    assert reply.to == "alice@example.org"
    assert reply.subject == "Emergo: welcome Alice"
    assert "s3cretpw" not in reply.body
    assert "alice@example.org" in reply.body
    # The quickest first game is named: a robot, always ready.
    assert "  emergo challenge Alice robot1\n" in reply.body
    stored = player(mailer.factory, "alice")
    assert stored.userid == "Alice"
    assert stored.password_hash.startswith("$argon2id$")
    assert [a.address for a in stored.addresses] == ["alice@example.org"]


def test_signup_with_addresses_registers_the_sender_and_asks_the_others(mailer: Mailer) -> None:
    replies = mailer.send(
        "signup alice pw1234 Alice@Work.example a@home.example", sender="alice@work.example",
        sender_auth="pass",
    )
    assert sorted((r.to, r.subject) for r in replies) == [
        ("a@home.example", "Emergo: please confirm your address for alice"),
        ("alice@work.example", "Emergo: welcome alice"),
    ]
    addresses = [a.address for a in player(mailer.factory, "alice").addresses]
    assert addresses == ["Alice@Work.example"]



@pytest.mark.parametrize(
    "address",
    ["\u00e9l\u202eve@example.org", "a\\b@example.org", "a\x01b@example.org", "<a@example.org>"],
)
def test_signup_refuses_an_address_no_reply_could_be_sent_to(
    mailer: Mailer, address: str
) -> None:
    # Control characters reach a command through a `multiple` body line.
    reply = mailer.one("multiple", body=f"signup alice pw1234 {address}\n")
    assert "is not a mail address" in reply.body
    with mailer.factory() as session:
        # No account made (the robots' accounts are there from the migration).
        assert session.scalars(select(Player).where(Player.userid_key == "alice")).first() is None

@pytest.mark.parametrize(
    ("userid", "why"),
    [
        ("a", "2 to 16 characters"),
        ("1abc", "starts with a letter"),
        ("abcdefghijklmnopq", "2 to 16 characters"),
        ("bad!id", "letters, digits"),
        ("all", "reserved"),
        ("Next", "reserved"),
        ("emergo", "reserved"),
    ],
)
def test_signup_refuses_bad_userids(mailer: Mailer, userid: str, why: str) -> None:
    reply = mailer.one(f"signup {userid} pw1234")
    assert reply.subject == "Emergo error"
    assert why in flat(reply.body.split("\n\n")[0])
    assert "pw1234" not in reply.body


def test_a_masked_long_word_leaves_no_short_line_behind(mailer: Mailer) -> None:
    # A word that is no userid may be a password typed in the wrong place: masked, after
    # the reply was wrapped around its 38 characters; its paragraph is filled again.
    reply = mailer.one("signup averyveryverylonguseridthatgoesonandon pw1234")
    assert "averyvery" not in reply.body
    assert reply.body.startswith(
        "The userid '********' is not allowed: a userid has 2 to 16 characters\n"
        "(letters, digits, _ and -) and starts with a letter.\n\n"
    )
    assert "\n  signup ******** ********\n" in reply.body


def test_a_multiple_report_keeps_its_lines_with_a_long_password_masked(mailer: Mailer) -> None:
    # Each command line of the report over its answer: not run together when the mask is
    # shorter than the password.
    mailer.signup("carol", "averylongpassword1", "carol@example.org")
    report = mailer.one(
        "multiple", body="vacation carol averylongpassword1 2\nemergo seeks\n",
        sender="carol@example.org",
    )
    assert "averylongpassword1" not in report.body
    assert "\n  > vacation carol ******** 2\n  " in report.body
    assert "\n  > emergo seeks\n  " in report.body
    # An answer is fitted to the columns left beside its indent, before it is indented:
    # its example stays under the sentence that introduces it, not hung as a list's item.
    assert "mail the\n    Subject\n      vacation carol PASSWORD off\n" in report.body
    assert all(len(line) <= 72 for line in report.body.splitlines())


def test_signup_refuses_a_taken_userid_in_any_case_and_a_short_password(players: Mailer) -> None:
    reply = players.one("signup ALICE other123", sender="eve@example.org")
    assert reply.body.startswith("The userid ALICE is already taken")
    assert "signup ALICE ********" in reply.body
    reply = players.one("signup carol abc", sender="carol@example.org")
    assert reply.body.startswith("A password needs 4 to 128 characters")


def test_signup_without_password_shows_usage_with_everything_masked(mailer: Mailer) -> None:
    reply = mailer.one("signup onlyname")
    assert reply.subject == "Emergo error"
    assert "signup userid password [address ...]" in reply.body
    assert "signup ********" in reply.body


def test_change_password(players: Mailer) -> None:
    reply = players.one("change password alice alicepw newpass1")
    assert reply.subject == "Emergo: password of alice changed"
    assert "alicepw" not in reply.body and "newpass1" not in reply.body
    old = players.one("change password alice alicepw other123")
    assert old.body.startswith("Wrong password for alice.")
    assert "change password alice ******** ********" in old.body
    players.one("change password alice newpass1 third123")


def test_change_address_tells_the_dropped_address(players: Mailer) -> None:
    # Sent from the new address, proven by our MTA: no confirmation needed.
    replies = players.send(
        "change address alice alicepw alice@new.example", sender="alice@new.example",
        sender_auth="pass",
    )
    assert sorted((r.to, r.subject) for r in replies) == [
        ("alice@example.org", "Emergo notice: alice"),
        ("alice@example.org", "Emergo: addresses of alice changed"),
        ("alice@new.example", "Emergo: addresses of alice changed"),
    ]
    assert [a.address for a in player(players.factory, "alice").addresses] == ["alice@new.example"]
    # A board mail now goes to the new address.
    replies = players.send("emergo challenge alice bob", sender="alice@new.example")
    assert sorted(r.to for r in replies) == ["alice@new.example", "bob@example.org"]


def test_change_address_from_elsewhere_tells_the_old_address(players: Mailer) -> None:
    replies = players.send(
        "change address alice alicepw a2@example.org", sender="a2@example.org", sender_auth="pass"
    )
    assert sorted((r.to, r.subject) for r in replies) == [
        ("a2@example.org", "Emergo: addresses of alice changed"),
        ("alice@example.org", "Emergo notice: alice"),
        ("alice@example.org", "Emergo: addresses of alice changed"),
    ]


def test_signoff_resigns_active_games_and_closes_the_account(players: Mailer) -> None:
    players.send("emergo challenge alice bob")
    replies = players.send("signoff bob bobpw", sender="bob@example.org")
    subjects = sorted((r.to, r.subject) for r in replies)
    assert subjects == [
        ("alice@example.org", "Emergo Board 101 Game over"),
        ("bob@example.org", "Emergo Board 101 Game over"),
        ("bob@example.org", "Emergo: goodbye bob"),
    ]
    board_mail = next(r for r in replies if r.subject.endswith("Game over"))
    assert "alice (Ohs) wins: bob resigned." in board_mail.body
    assert "bob signed off" in board_mail.body
    again = players.one("change password bob bobpw another1", sender="bob@example.org")
    assert again.body.startswith("There is no player 'bob'.")
    taken = players.one("signup bob newbob12", sender="bob2@example.org")
    assert "already taken" in taken.body


def test_list_counts_boards(players: Mailer) -> None:
    players.send("emergo challenge alice bob")
    players.send("emergo challenge bob alice", sender="bob@example.org")
    players.send("emergo move 102 bob bobpw e4", sender="bob@example.org")
    players.send("emergo resign 102 bob bobpw", sender="bob@example.org")
    reply = players.one("list")
    assert "emergo     1 active board, 1 finished" in reply.body
    assert "5 players signed up." in reply.body  # alice, bob and the three robots


def test_five_wrong_passwords_lock_the_userid_for_that_sender_for_an_hour(
    players: Mailer,
) -> None:
    players.send("emergo challenge alice bob")
    for attempt in range(1, 5):
        reply = players.one("emergo move 101 alice guess e4", sender="eve@example.org")
        assert reply.body.startswith("Wrong password for alice.")
        assert f"After {5 - attempt} more wrong password" in reply.body
    replies = players.send("emergo move 101 alice guess e4", sender="eve@example.org")
    assert sorted((r.to, r.subject) for r in replies) == [
        ("alice@example.org", "Emergo notice: someone is guessing the password of alice"),
        ("eve@example.org", "Emergo Board 101 Error"),
    ]
    error = next(r for r in replies if r.to == "eve@example.org")
    assert "are refused until" in error.body
    # Even the right password is refused from that sender while the lock holds.
    locked = players.one("emergo move 101 alice alicepw e4", sender="eve@example.org")
    assert locked.body.startswith("The userid alice is locked for mail from eve@example.org")
    assert locked.subject == "Emergo Board 101 Error"
    # An hour later it works again.
    players.now += timedelta(hours=1)
    replies = players.send("emergo move 101 alice alicepw e4", sender="eve@example.org")
    assert sorted(r.subject for r in replies) == ["Emergo Board 101 bob"] * 2 + [
        "Emergo notice: alice"
    ]


def test_five_wrong_passwords_in_proven_mail_from_the_registered_address_lock_it(
    players: Mailer,
) -> None:
    players.send("emergo challenge alice bob")
    for _ in range(4):
        players.one("emergo move 101 alice guess e4", sender_auth="pass")
    replies = players.send("emergo move 101 alice guess e4", sender_auth="pass")
    assert sorted((r.to, r.subject) for r in replies) == [
        ("alice@example.org", "Emergo Board 101 Error"),
        ("alice@example.org", "Emergo notice: alice locked for alice@example.org"),
    ]
    locked = players.one("emergo move 101 alice alicepw e4", sender_auth="pass")
    assert locked.body.startswith("The userid alice is locked for mail from alice@example.org")


@pytest.mark.parametrize("sender_auth", ["", "none"])
def test_wrong_passwords_in_unproven_mail_from_the_registered_address_lock_nothing(
    players: Mailer, sender_auth: str
) -> None:
    """Anyone can write alice's address in From: such mail must not lock her out."""
    players.send("emergo challenge alice bob")
    for _ in range(8):
        reply = players.one("emergo move 101 alice guess e4", sender_auth=sender_auth)
        # Never locked out, so not told of the count: two lines, no DMARC paragraph.
        assert "Passwords are case-sensitive. Forgotten it? Send 'forgot alice'" in flat(
            reply.body
        )
        assert "DMARC" not in reply.body
    replies = players.send("emergo move 101 alice alicepw e4", sender_auth=sender_auth)
    assert sorted(r.subject for r in replies) == ["Emergo Board 101 bob"] * 2


def test_wrong_passwords_spread_over_more_than_an_hour_do_not_lock(players: Mailer) -> None:
    for _ in range(4):
        players.one("change password alice guess guess123")
    players.now += timedelta(hours=1, minutes=1)
    for _ in range(4):
        reply = players.one("change password alice guess guess123")
        assert reply.body.startswith("Wrong password")
    players.one("change password alice alicepw alicepw2")


def test_right_password_from_a_foreign_address_works_and_notifies(players: Mailer) -> None:
    players.send("emergo challenge alice bob")
    replies = players.send("emergo move 101 alice alicepw e4", sender="mallory@example.org")
    assert sorted((r.to, r.subject) for r in replies) == [
        ("alice@example.org", "Emergo Board 101 bob"),
        ("alice@example.org", "Emergo notice: alice"),
        ("bob@example.org", "Emergo Board 101 bob"),
    ]
    notice = next(r for r in replies if r.subject == "Emergo notice: alice")
    assert "mallory@example.org" in notice.body
    assert "emergo move 101 alice ******** e4" in notice.body
    assert "alicepw" not in notice.body


def test_a_wrong_password_from_a_foreign_address_sends_no_notice(players: Mailer) -> None:
    replies = players.send("change password alice nope nope1234", sender="mallory@example.org")
    assert [r.to for r in replies] == ["mallory@example.org"]
