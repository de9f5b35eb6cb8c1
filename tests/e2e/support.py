"""What the end-to-end tests share."""

from __future__ import annotations

from mail.support import wait_for
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import InboundMessage, OutboundMessage


def wait_for_replies(
    sessions: sessionmaker[Session], message_id: str, settled: tuple[str, ...] = ("sent",)
) -> int:
    """Wait until the mail ``message_id`` is done and each of its replies has a status in
    ``settled``; return how many replies it has."""

    def replies() -> int | None:
        with sessions.begin() as session:
            inbound = session.scalars(
                select(InboundMessage).where(InboundMessage.message_id == message_id)
            ).one_or_none()
            if inbound is None or inbound.status != "done":
                return None
            statuses = list(session.scalars(
                select(OutboundMessage.status).where(OutboundMessage.inbound_id == inbound.id)
            ))
        if any(s not in settled for s in statuses):
            return None
        return len(statuses) + 1  # never 0, which wait_for would take for "not yet"

    return int(wait_for(replies)) - 1
