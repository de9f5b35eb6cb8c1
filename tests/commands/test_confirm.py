"""Addresses confirmed by their owners, and wrong passwords counted per sender, through
`handle` on a real migrated database (the end-to-end versions are in
tests/e2e/test_accounts_security.py)."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import AddressConfirmation, Player
from pbm_emergo.game.messages import Reply
from pbm_emergo.game.timers import scheduled
from tests.support.mailer import Mailer

VICTIM = "victim@stranger.example"


def code_in(replies: list[Reply], address: str) -> str:
    [mail] = [r for r in replies if r.to == address and "confirm your address" in r.subject]
    match = re.search(r"confirm (\S{4}-\S{4}-\S{4}-\S{4})", mail.body)
    assert match is not None
    return match[1]


def addresses(factory: sessionmaker[Session], userid: str) -> list[str]:
    with factory() as session:
        player = session.scalars(select(Player).where(Player.userid_key == userid)).one()
        return [a.address for a in player.addresses]


def waiting(factory: sessionmaker[Session]) -> int:
    with factory() as session:
        return int(session.scalar(select(func.count()).select_from(AddressConfirmation)) or 0)


def test_a_code_is_valid_for_seven_days_then_forgotten(mailer: Mailer) -> None:
    code = code_in(mailer.send(f"signup vic vicpw1 {VICTIM}", sender="eve@example.org"), VICTIM)
    assert addresses(mailer.factory, "vic") == []
    mailer.now += timedelta(days=7)
    reply = mailer.one(f"confirm {code}", sender=VICTIM)
    assert reply.body.startswith("No address is waiting for this code")
    assert "confirm ********" in reply.body  # the code is never echoed
    assert waiting(mailer.factory) == 1
    with mailer.factory.begin() as session:
        scheduled(session, mailer.config, mailer.now)
    assert waiting(mailer.factory) == 0
    assert addresses(mailer.factory, "vic") == []


def test_one_code_mail_a_day_to_an_address(mailer: Mailer) -> None:
    mailer.send(f"signup vic vicpw1 {VICTIM}", sender="eve@example.org")
    reply = mailer.one(f"signup vic2 vicpw1 {VICTIM}", sender="eve@example.org")
    assert reply.subject == "Emergo error"
    assert reply.body.startswith(f"A confirmation code was mailed to {VICTIM} at")
    assert "or write from that address" in reply.body
    # Its owner can always sign up from the address itself.
    replies = mailer.send("signup vic3 vicpw1", sender=VICTIM)
    assert [(r.to, r.subject) for r in replies] == [(VICTIM, "Emergo: welcome vic3")]
    mailer.now += timedelta(days=1)
    replies = mailer.send(f"signup vic2 vicpw1 {VICTIM}", sender="eve@example.org")
    assert sorted(r.to for r in replies) == ["eve@example.org", VICTIM]


def test_a_code_for_a_player_who_left_does_nothing(mailer: Mailer) -> None:
    replies = mailer.send(f"signup vic vicpw1 eve@example.org {VICTIM}", sender="eve@example.org")
    code = code_in(replies, VICTIM)
    mailer.send("signoff vic vicpw1", sender="eve@example.org")
    reply = mailer.one(f"confirm {code}", sender=VICTIM)
    assert reply.body.startswith("The player this code was for has signed off.")


def test_confirmed_addresses_take_the_place_they_were_given(players: Mailer) -> None:
    replies = players.send(
        "change address alice alicepw a1@new.example alice@example.org a2@new.example"
    )
    assert sorted((r.to, r.subject) for r in replies) == [
        ("a1@new.example", "Emergo: please confirm your address for alice"),
        ("a2@new.example", "Emergo: please confirm your address for alice"),
        ("alice@example.org", "Emergo: addresses of alice changed"),
    ]
    first, second = code_in(replies, "a1@new.example"), code_in(replies, "a2@new.example")
    assert addresses(players.factory, "alice") == ["alice@example.org"]
    # A line of a `multiple` mail works too, from any address.
    report = players.one("multiple", body=f"confirm {second}\n", sender="a2@new.example")
    assert "confirmed a2@new.example for alice" in report.body
    players.one(f"confirm {first}", sender="someone@else.example")
    assert addresses(players.factory, "alice") == [
        "a1@new.example", "alice@example.org", "a2@new.example",
    ]  # fmt: skip


def test_a_signup_from_the_address_itself_needs_no_code(mailer: Mailer) -> None:
    replies = mailer.send("signup vic vicpw1 Victim@Stranger.example", sender=VICTIM)
    assert [(r.to, r.subject) for r in replies] == [(VICTIM, "Emergo: welcome vic")]
    assert addresses(mailer.factory, "vic") == ["Victim@Stranger.example"]


def test_guessers_are_counted_together_and_a_good_login_does_not_reset_them(
    players: Mailer,
) -> None:
    for n in range(19):
        players.send("change password alice guess alice-new1", sender=f"g{n}@evil.example")
    # alice's own good login from her registered address leaves their count alone.
    players.one("change password alice alicepw alicepw2")
    replies = players.send("change password alice guess alice-new1", sender="g19@evil.example")
    answer = next(r for r in replies if r.to == "g19@evil.example")
    assert "from addresses not registered for it are refused until" in answer.body
    locked = players.one("change password alice alicepw2 alicepw3", sender="g20@evil.example")
    assert locked.body.startswith("The userid alice is locked until")
    # Still fine from her registered address.
    assert players.one("change password alice alicepw2 alicepw3").subject == (
        "Emergo: password of alice changed"
    )


def test_the_player_is_told_of_an_attack_at_most_once_a_day(players: Mailer) -> None:
    def attack(sender: str) -> list[str]:
        told = []
        for _ in range(5):
            replies = players.send("change password alice guess alice-new1", sender=sender)
            told += [r.subject for r in replies if r.to == "alice@example.org"]
        return told

    notice = "Emergo notice: someone is guessing the password of alice"
    assert attack("eve@evil.example") == [notice]
    assert attack("mallory@evil.example") == []
    players.now += timedelta(days=1)
    assert attack("trudy@evil.example") == [notice]
