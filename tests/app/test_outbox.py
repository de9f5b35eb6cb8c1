"""The outbox service on both backends: the hourly cap per address holds a reply for a later
hour and sends one notice, built outside the write transaction; the same mail to several
people is built once and readdressed; mail to others is charged to the sender who caused
it; a dead letter's notice."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.outbox import BuiltReply, LimitNotices, LimitNoticesWanted, Outbox
from pbm_emergo.config import Config
from pbm_emergo.db import inbox
from pbm_emergo.db.claims import ClaimedMail
from pbm_emergo.db.models import INBOUND_DEAD, InboundMessage, OutboundMessage
from pbm_emergo.db.session import read_sessions
from pbm_emergo.mail.inbound import InboxHandler
from tests.support.mail import command_mail
from tests.support.text import flat

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
ASKED = "<ask-1@example.org>"


def parsed(raw: bytes) -> EmailMessage:
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return msg


def outbound(factory: sessionmaker[Session]) -> list[OutboundMessage]:
    with factory.begin() as session:
        return list(session.scalars(select(OutboundMessage).order_by(OutboundMessage.id)))


def stored_mail(config: Config, factory: sessionmaker[Session], message_id: str) -> int:
    """A mail in the inbox (what the outbox rows of its replies name)."""
    handler = InboxHandler(factory, config, clock=lambda: NOW)
    raw = command_mail("help", message_id=message_id).as_bytes(policy=policy.SMTP)
    return handler.store(raw, "alice@example.org", [config.address]).id


def test_over_the_cap_a_reply_is_held_for_a_later_hour_after_one_notice(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    config = dataclasses.replace(config, reply_limit=2)
    box = Outbox(config, clock=lambda: NOW)
    replies = [Reply("alice@example.org", f"Emergo reply {n}", f"text {n}\n") for n in range(5)]
    built = box.build_all(replies, NOW, in_reply_to=ASKED, references=("<root@example.org>",))
    # The notice is not made in the write transaction: asked for, nothing is stored.
    with pytest.raises(LimitNoticesWanted) as wanted, session_factory.begin() as session:
        box.enqueue(session, built, NOW)
    # The reply that reaches the cap, whose threading the notice takes.
    assert [b.reply.subject for b in wanted.value.replies] == ["Emergo reply 2"]
    assert outbound(session_factory) == []
    asked: list[LimitNotices] = []

    def write(notices: LimitNotices) -> int:
        asked.append(dict(notices))
        with session_factory.begin() as session:
            return box.enqueue(session, built, NOW, limit_notices=notices)

    queued = box.with_limit_notices(read_sessions(session_factory), write, NOW)
    assert [sorted(notices) for notices in asked] == [[], ["alice@example.org"]]
    assert queued == 3  # two replies and the notice now; three replies later
    out = outbound(session_factory)
    hour, two_hours = NOW + timedelta(hours=1), NOW + timedelta(hours=2)
    assert [(parsed(o.raw)["Subject"], o.status, o.next_attempt_at) for o in out] == [
        ("Emergo reply 0", "pending", NOW),
        ("Emergo reply 1", "pending", NOW),
        ("Emergo: reply limit reached", "pending", NOW),
        # Held, never dropped: at most the cap's number of them due in each later hour.
        ("Emergo reply 2", "pending", hour),
        ("Emergo reply 3", "pending", hour),
        ("Emergo reply 4", "pending", two_hours),
    ]
    notice = parsed(out[2].raw)
    assert notice["In-Reply-To"] == ASKED
    assert notice["References"] == f"<root@example.org> {ASKED}"
    assert "held, not lost" in flat(notice.get_content())
    held = [o for o in out if o.next_attempt_at > NOW]
    assert all((o.last_error or "").startswith("held: more than 2 mails") for o in held)
    # The notice goes once: the next reply that hour is held without another.
    built = box.build_all([Reply("alice@example.org", "Emergo later", "later\n")], NOW)
    with session_factory.begin() as session:
        assert box.enqueue(session, built, NOW) == 0
    later = outbound(session_factory)[len(out):]
    assert [(parsed(o.raw)["Subject"], o.next_attempt_at) for o in later] == [
        ("Emergo later", two_hours)
    ]


def test_the_same_mail_to_several_people_is_readdressed(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    box = Outbox(config, clock=lambda: NOW)
    board = [
        Reply(to, "Emergo Board 101 bob", "the board\n", board=101, solicited=True)
        for to in ("alice@example.org", "Bob@Example.org")
    ]
    first, second = box.build_all(board, NOW, in_reply_to=ASKED)
    assert (first.recipient, second.recipient) == ("alice@example.org", "bob@example.org")
    assert first.subject == second.subject == "Emergo Board 101 bob"
    assert first.message_id != second.message_id
    one, other = parsed(first.raw), parsed(second.raw)
    assert (one["To"], other["To"]) == ("alice@example.org", "bob@example.org")
    assert other["Message-ID"] == second.message_id
    # Everything else is the same mail, byte for byte.
    for name in ("Subject", "Date", "In-Reply-To", "References", "Auto-Submitted"):
        assert one[name] == other[name]
    assert first.raw.partition(b"\r\n\r\n")[2] == second.raw.partition(b"\r\n\r\n")[2]
    with session_factory.begin() as session:
        assert box.enqueue(session, [first, second], NOW) == 2
    assert [o.recipient for o in outbound(session_factory)] == [
        "alice@example.org", "bob@example.org"
    ]


def test_only_the_answer_to_the_sender_refers_to_their_mail(config: Config) -> None:
    box = Outbox(config, clock=lambda: NOW)
    board = [
        Reply(to, "Emergo Board 101 bob", "the board\n", board=101, solicited=True)
        for to in ("Alice@Example.org", "bob@example.org", "carol@example.org")
    ]
    mine, bobs, carols = box.build_all(
        board, NOW, in_reply_to=ASKED, references=("<older@alice-host.example>",),
        sender="alice@example.org",
    )
    own = parsed(mine.raw)
    assert own["In-Reply-To"] == ASKED
    assert own["References"] == (
        f"<board-101.pbm-emergo@{config.address.rpartition('@')[2]}> "
        f"<older@alice-host.example> {ASKED}"
    )
    for built in (bobs, carols):
        other = parsed(built.raw)
        assert other["In-Reply-To"] is None
        assert other["References"] == own["References"].split()[0]
        assert b"alice-host" not in built.raw and ASKED.encode() not in built.raw
    # The two mails to others are one mail readdressed; the sender's was built apart.
    assert bobs.raw.partition(b"\r\n\r\n")[2] == carols.raw.partition(b"\r\n\r\n")[2]
    assert parsed(carols.raw)["To"] == "carol@example.org"


def test_a_reply_that_cannot_be_sent_is_left_out(config: Config) -> None:
    box = Outbox(config, clock=lambda: NOW)
    assert box.build(Reply("not an address", "Emergo help", "text\n"), NOW) is None
    assert box.build(Reply("a@example.org", "Emergo", "x\n"), NOW, in_reply_to="<a\n@b>") is None


def test_mail_to_others_is_charged_to_the_sender_who_caused_it(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    box = Outbox(config, clock=lambda: NOW)
    inbound_id = stored_mail(config, session_factory, ASKED)
    replies = [
        Reply("alice@example.org", "Emergo challenge sent", "sent\n"),  # the sender's own
        Reply("bob@example.org", "Emergo challenge", "from alice\n"),  # asked for by nobody
        Reply("carol@example.org", "Emergo Board 7 bob", "board\n", solicited=True),
    ]
    built = box.build_all(replies, NOW, in_reply_to=ASKED)
    with session_factory.begin() as session:
        assert box.enqueue(session, built, NOW, inbound_id=inbound_id,
                           charged_to="alice@example.org") == 3
    out = outbound(session_factory)
    assert [(o.recipient, o.charged_to, o.inbound_id) for o in out] == [
        ("alice@example.org", None, inbound_id),
        ("bob@example.org", "alice@example.org", inbound_id),
        ("carol@example.org", None, inbound_id),
    ]


def dead_letter(
    box: Outbox, factory: sessionmaker[Session], inbound_id: int
) -> tuple[ClaimedMail, BuiltReply | None]:
    """The stored mail ``inbound_id`` given up on, and its notice as the server builds it:
    ahead, in a reading session."""
    with factory.begin() as session:
        session.execute(
            update(InboundMessage).where(InboundMessage.id == inbound_id)
            .values(status=INBOUND_DEAD)
        )
    with read_sessions(factory)() as session:
        dead = inbox.read_claimed(session, inbound_id)
        assert dead is not None
        return dead, box.dead_letter_notice(session, dead, NOW)


def test_a_dead_letter_tells_its_sender(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    box = Outbox(config, clock=lambda: NOW)
    inbound_id = stored_mail(config, session_factory, ASKED)
    dead, notice = dead_letter(box, session_factory, inbound_id)  # built ahead
    assert notice is not None and notice.recipient == "alice@example.org"
    with session_factory.begin() as session:
        box.notify_dead(session, dead, notice, {}, NOW)  # queued in the write transaction
    [out] = outbound(session_factory)
    assert (out.recipient, out.inbound_id, out.message_id) == (
        "alice@example.org", inbound_id, notice.message_id
    )
    mail = parsed(out.raw)
    assert (mail["Subject"], mail["In-Reply-To"]) == ("Emergo error", ASKED)
    assert "help" in mail.get_content()


def test_a_dead_letter_at_its_senders_cap_brings_the_limit_notice_built_outside(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    box = Outbox(dataclasses.replace(config, reply_limit=1), clock=lambda: NOW)
    inbound_id = stored_mail(config, session_factory, ASKED)
    with session_factory.begin() as session:
        box.enqueue(session, box.build_all([Reply("alice@example.org", "Emergo", "x\n")], NOW),
                    NOW)
    dead, notice = dead_letter(box, session_factory, inbound_id)

    def write(limit_notices: LimitNotices) -> None:
        with session_factory.begin() as session:
            box.notify_dead(session, dead, notice, limit_notices, NOW)

    box.with_limit_notices(read_sessions(session_factory), write, NOW)
    out = outbound(session_factory)
    assert [(o.subject, o.next_attempt_at) for o in out] == [
        ("Emergo", NOW),
        ("Emergo: reply limit reached", NOW),
        ("Emergo error", NOW + timedelta(hours=1)),  # held, as any reply over the cap
    ]
    assert parsed(out[1].raw)["In-Reply-To"] == ASKED


def test_a_dead_letter_not_to_be_answered_gets_no_notice(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    box = Outbox(config, clock=lambda: NOW)
    inbound_id = stored_mail(config, session_factory, ASKED)
    with session_factory.begin() as session:
        session.execute(
            update(InboundMessage).where(InboundMessage.id == inbound_id)
            .values(not_answered="an auto-reply")
        )
        dead = inbox.read_claimed(session, inbound_id)
        assert dead is not None
        assert box.dead_letter_notice(session, dead, NOW) is None
        box.notify_dead(session, dead, None, {}, NOW)
    assert outbound(session_factory) == []
