"""Whether a board's reminder reached its player: the scheduler lets a game be lost on time
only after a reminder was actually sent to the player (handed to the relay), not merely
queued, and not when a limit held it back or its delivery failed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import (
    OUTBOUND_PENDING,
    OUTBOUND_SENDING,
    OUTBOUND_SENT,
    OutboundMessage,
)


@dataclass(frozen=True)
class ReminderDelivery:
    """What became of the reminders of one board to one player since a moment."""

    sent_at: datetime | None  # when the last of them was sent, None if none was
    on_its_way: bool  # one is queued (or held back by a limit) and neither sent nor given up


def reminder_delivery(
    session: Session,
    board_number: int,
    recipients: Iterable[str],
    subject: str,
    since: datetime,
) -> ReminderDelivery:
    """The reminders with this ``subject`` about ``board_number`` queued for any of
    ``recipients`` at or after ``since`` (the start of the player's turn)."""
    keys = sorted({r.strip().lower() for r in recipients})
    if not keys:
        return ReminderDelivery(sent_at=None, on_its_way=False)
    rows = session.execute(
        select(OutboundMessage.status, OutboundMessage.sent_at).where(
            OutboundMessage.board_number == board_number,
            OutboundMessage.recipient.in_(keys),
            OutboundMessage.subject == subject,
            OutboundMessage.created_at >= since,
        )
    ).all()
    sent = [sent_at for status, sent_at in rows if status == OUTBOUND_SENT and sent_at]
    return ReminderDelivery(
        sent_at=max(sent) if sent else None,
        on_its_way=any(status in (OUTBOUND_PENDING, OUTBOUND_SENDING) for status, _ in rows),
    )
