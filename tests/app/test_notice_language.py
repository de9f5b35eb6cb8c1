"""The outbox's own notices in the language of the player an address belongs to, on both
backends: the outbox knows only an address, so the "reply limit reached" notice and a dead
letter's notice look up the player's language when they are made (a Dutch player reads
them in Dutch, an address of nobody's in English)."""

from __future__ import annotations

import dataclasses

from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.outbox import LimitNotices, Outbox
from pbm_emergo.config import Config
from pbm_emergo.db import inbox, players
from pbm_emergo.db.session import read_sessions
from tests.app.test_outbox import ASKED, NOW, outbound, parsed, stored_mail
from tests.support.text import flat


def dutch_alice(factory: sessionmaker[Session]) -> None:
    with factory.begin() as session:
        player = players.create_player(session, "alice", "alice-pw1", ["alice@example.org"], NOW)
        player.language = "nl"


def test_the_reply_limit_notice_in_the_players_language(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    dutch_alice(session_factory)
    box = Outbox(dataclasses.replace(config, reply_limit=1), clock=lambda: NOW)
    replies = [
        Reply(to, f"Emergo reply {n}", f"text {n}\n")
        for to in ("alice@example.org", "bob@example.org")
        for n in range(2)
    ]
    built = box.build_all(replies, NOW)

    def write(limit_notices: LimitNotices) -> int:
        with session_factory.begin() as session:
            return box.enqueue(session, built, NOW, limit_notices=limit_notices)

    box.with_limit_notices(read_sessions(session_factory), write, NOW)
    notices = {
        o.recipient: flat(parsed(o.raw).get_content())
        for o in outbound(session_factory)
        if o.subject == "Emergo: reply limit reached"  # the Subject stays English
    }
    assert notices["alice@example.org"].startswith(
        "Deze server heeft in het afgelopen uur 1 mails naar je adres gestuurd"
    )
    assert "ze gaan vanaf 21 november 2026 11:00 UTC weg" in notices["alice@example.org"]
    assert notices["bob@example.org"].startswith(
        "This server has sent 1 mails to your address in the last hour"
    )
    assert "from 2026-11-21 11:00 UTC on" in notices["bob@example.org"]


def test_a_dead_letters_notice_in_the_senders_language(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    dutch_alice(session_factory)
    box = Outbox(config, clock=lambda: NOW)
    inbound_id = stored_mail(config, session_factory, ASKED)
    with read_sessions(session_factory)() as session:
        dead = inbox.read_claimed(session, inbound_id)
        assert dead is not None
        notice = box.dead_letter_notice(session, dead, NOW)
    assert notice is not None and notice.reply.subject == "Emergo error"
    assert "Onderwerp van je mail: help" in notice.reply.body
