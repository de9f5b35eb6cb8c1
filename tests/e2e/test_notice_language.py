"""The "reply limit reached" notice in the language of the player whose address reached
the limit, not the sender's who caused it: alice (English) floods bob (German) with
challenges; bob's notice is in German, with its Subject in English. Through the real
listener, SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from tests.support.clock import Clock
from tests.support.mail import wait_for
from tests.support.post import ALICE, BOB, Post, text
from tests.support.text import flat


def test_a_german_player_reads_his_reply_limit_notice_in_german(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post(reply_limit=2)
    clock.now += timedelta(hours=2)  # the sign-up mails counted in an hour gone by
    post.one("language bob bob-pw1 de", BOB)
    clock.now += timedelta(hours=2)
    post.send("multiple", ALICE, body="emergo challenge alice bob\n" * 3)

    def notices() -> list[str]:
        return [
            text(m) for m in post.received_by(BOB)
            if str(m["Subject"]) == "Emergo: reply limit reached"
        ]  # fmt: skip

    [notice] = wait_for(notices)
    assert flat(notice).startswith(
        "Dieser Server hat deiner Adresse in der letzten Stunde 2 Mails geschickt"
    )
    assert "höchstens 2 pro Stunde" in flat(notice)
