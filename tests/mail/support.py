"""What the outbox tests share: a reply queued for delivery, the outbox as stored."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import Reply
from pbm_emergo.db import outbox
from pbm_emergo.db.models import OutboundMessage
from pbm_emergo.views.reply_mail import build_reply, reply_bytes
from tests.support.clock import START


def queue_reply(factory: sessionmaker[Session], to: str, subject: str = "Emergo help") -> int:
    raw = reply_bytes(build_reply(Reply(to, subject, "body\n"), server_address="s@e.test",
                                  now=START, in_reply_to="<c@example.org>"))
    with factory.begin() as session:
        return outbox.enqueue_outbound(session, to, raw, START, subject=subject).id


def outbound(factory: sessionmaker[Session]) -> list[OutboundMessage]:
    with factory.begin() as session:
        return list(session.scalars(select(OutboundMessage).order_by(OutboundMessage.id)))
