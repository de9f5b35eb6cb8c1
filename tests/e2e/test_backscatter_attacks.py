"""Mail without a command, replayed through the listener: no backscatter.

Spam with a forged From has no command; answering each one ("Emergo: start here") would
mail the forged address, a stranger, as often as the spammer likes. An address no player
registered is told where to start at most once a week, and mail whose From fails DMARC by
our own MTA's verdict is never answered. A player's own address is answered every time.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from tests.support.clock import Clock
from tests.support.post import ALICE, Post

AUTHSERV_ID = "mx.emergo.test"
STRANGER = "forged@elsewhere.example"
START_HERE = "Emergo: start here"


def results(verdict: str) -> dict[str, str]:
    return {
        "Authentication-Results": f"{AUTHSERV_ID}; dkim=none (no signature); "
        f"spf=pass smtp.mailfrom=example.org; dmarc={verdict} (p=reject dis=none) "
        "header.from=example.org"
    }


def start_here_to(post: Post, address: str) -> int:
    return sum(1 for m in post.received_by(address) if str(m["Subject"]) == START_HERE)


def test_mail_without_a_command_from_a_stranger_is_answered_once_a_week(
    make_post: Callable[..., Post], clock: Clock,
) -> None:
    post = make_post()
    [reply] = post.send("Cheap watches", STRANGER, body="Buy now")
    assert str(reply["Subject"]) == START_HERE
    for subject in ("Cheap watches", "", "Re: your order", ""):
        assert post.send(subject, STRANGER, body="Buy now" if subject else "") == []
    assert start_here_to(post, STRANGER) == 1
    clock.now += timedelta(days=6, hours=23)
    assert post.send("Cheap watches", STRANGER) == []
    clock.now += timedelta(hours=2)
    [reply] = post.send("Cheap watches", STRANGER)
    assert str(reply["Subject"]) == START_HERE
    assert start_here_to(post, STRANGER) == 2


def test_mail_without_a_command_whose_from_fails_dmarc_is_never_answered(
    make_post: Callable[..., Post],
) -> None:
    post = make_post(authserv_id=AUTHSERV_ID)
    victim = "victim@example.org"
    assert post.send("Cheap watches", victim, headers=results("fail")) == []
    assert post.send("", victim, headers=results("fail")) == []
    # Not even in a player's name: the mail is not theirs.
    assert post.send("Cheap watches", ALICE, headers=results("fail")) == []
    assert start_here_to(post, victim) == 0
    # The same address, its From passing: the stranger is told where to start, once.
    [reply] = post.send("Hello", victim, headers=results("pass"))
    assert str(reply["Subject"]) == START_HERE


def test_a_players_mail_without_a_command_is_answered_every_time(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    for _ in range(3):
        [reply] = post.send("Hi there", ALICE)
        assert str(reply["Subject"]) == START_HERE
