"""Addresses confirmed by their owners, and wrong passwords counted per sender, through
`handle` on a real migrated database (the end-to-end versions are in
tests/e2e/test_accounts_security.py)."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import Reply
from pbm_emergo.db.models import AddressConfirmation, Player
from tests.support.mailer import Mailer
from tests.support.signup import code_subject, confirmation_code
from tests.support.text import flat

from .support import run_scheduler

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
    assert flat(reply.body).startswith("No address is waiting for this code")
    assert "confirm ********" in flat(reply.body)  # the code is never echoed
    assert waiting(mailer.factory) == 1
    run_scheduler(mailer, timedelta(0))
    assert waiting(mailer.factory) == 0
    assert addresses(mailer.factory, "vic") == []


def test_code_mails_asked_by_others_are_capped_but_never_the_owners_own(mailer: Mailer) -> None:
    mailer.send(f"signup vic vicpw1 {VICTIM}", sender="eve@example.org")
    # One a day for each address asking ...
    reply = mailer.one(f"signup vic2 vicpw1 {VICTIM}", sender="eve@example.org")
    assert reply.subject == "Emergo error"
    assert flat(reply.body).startswith(
        f"A confirmation code for {VICTIM} was asked from your address at"
    )
    assert f"or send the command from {VICTIM} itself" in flat(reply.body)
    # ... and three a day in all, whoever asks.
    for n, asker in enumerate(("mallory@example.org", "trudy@example.org"), start=3):
        replies = mailer.send(f"signup vic{n} vicpw1 {VICTIM}", sender=asker)
        assert sorted(r.to for r in replies) == sorted([asker, VICTIM])
    reply = mailer.one(f"signup vic9 vicpw1 {VICTIM}", sender="oscar@example.org")
    assert flat(reply.body).startswith(
        f"{VICTIM} was mailed 3 confirmation codes asked from other"
    )
    # Its owner always gets a code, from the address itself: the answer carries it.
    [answer] = mailer.send("signup victim vicpw1", sender=VICTIM)
    assert (answer.to, answer.subject) == (VICTIM, code_subject("victim"))
    welcome = mailer.one(f"confirm {confirmation_code(answer.body)}", sender=VICTIM)
    assert welcome.subject == "Emergo: welcome victim"
    assert addresses(mailer.factory, "victim") == [VICTIM]
    mailer.now += timedelta(days=1)
    replies = mailer.send(f"signup vic2 vicpw1 {VICTIM}", sender="eve@example.org")
    assert sorted(r.to for r in replies) == ["eve@example.org", VICTIM]


def test_a_code_for_a_player_who_left_does_nothing(mailer: Mailer) -> None:
    replies = mailer.send(f"signup vic vicpw1 eve@example.org {VICTIM}", sender="eve@example.org")
    code = code_in(replies, VICTIM)
    mailer.send("signoff vic vicpw1", sender="eve@example.org")
    reply = mailer.one(f"confirm {code}", sender=VICTIM)
    assert flat(reply.body).startswith("The player this code was for has signed off.")


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
    assert "confirmed a2@new.example for alice" in flat(report.body)
    players.one(f"confirm {first}", sender="someone@else.example")
    assert addresses(players.factory, "alice") == [
        "a1@new.example", "alice@example.org", "a2@new.example",
    ]  # fmt: skip


def test_a_signup_proven_to_come_from_the_address_needs_no_code(mailer: Mailer) -> None:
    replies = mailer.send(
        "signup vic vicpw1 Victim@Stranger.example", sender=VICTIM, sender_auth="pass"
    )
    assert [(r.to, r.subject) for r in replies] == [(VICTIM, "Emergo: welcome vic")]
    assert addresses(mailer.factory, "vic") == ["Victim@Stranger.example"]


def test_a_signup_from_an_address_not_proven_is_answered_with_its_code_alone(
    mailer: Mailer,
) -> None:
    for n, sender_auth in enumerate(("", "none", "fail")):
        [answer] = mailer.send(f"signup vic{n} vicpw1", sender=VICTIM, sender_auth=sender_auth)
        assert (answer.to, answer.subject) == (VICTIM, code_subject(f"vic{n}"))
        assert addresses(mailer.factory, f"vic{n}") == []
        code = confirmation_code(answer.body)
        assert f"confirm {code}" in flat(answer.body) and "emergo challenge" in flat(answer.body)
        welcome = mailer.one(f"confirm {code}", sender=VICTIM)
        assert welcome.subject == f"Emergo: welcome vic{n}"
        assert "Your account is ready" in flat(welcome.body)
        assert addresses(mailer.factory, f"vic{n}") == [VICTIM]


def test_a_new_code_from_the_address_itself_replaces_the_old_one(players: Mailer) -> None:
    old = code_in(players.send("change address alice alicepw new@example.org"), "new@example.org")
    replies = players.send("change address alice alicepw new@example.org", sender="new@example.org")
    # The code comes in the answer, once; the old address is not sent it.
    [answer] = [r for r in replies if r.to == "new@example.org"]
    assert [r.subject for r in replies if r.to != "new@example.org"] == ["Emergo notice: alice"]
    assert answer.subject == "Emergo: addresses of alice changed"
    new = confirmation_code(answer.body)
    assert players.one(f"confirm {old}", sender="new@example.org").subject == "Emergo error"
    replies = players.send(f"confirm {new}", sender="new@example.org")
    assert sorted(r.to for r in replies) == ["alice@example.org", "new@example.org"]
    assert addresses(players.factory, "alice") == ["new@example.org"]


def test_guessers_are_counted_together_and_a_good_login_does_not_reset_them(
    players: Mailer,
) -> None:
    for n in range(19):
        players.send("change password alice guess alice-new1", sender=f"g{n}@evil.example")
    # alice's own good login from her registered address leaves their count alone.
    players.one("change password alice alicepw alicepw2")
    replies = players.send("change password alice guess alice-new1", sender="g19@evil.example")
    answer = next(r for r in replies if r.to == "g19@evil.example")
    assert "from addresses not registered for it are refused until" in flat(answer.body)
    locked = players.one("change password alice alicepw2 alicepw3", sender="g20@evil.example")
    assert flat(locked.body).startswith("The userid alice is locked until")
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
