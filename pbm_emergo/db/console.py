"""The queries of the web console (:mod:`pbm_emergo.web.console`) that its generic views
cannot make from a model alone: players found by an address too, the dead letters of each
queue, and a message put back in its queue by the label ``admin mail`` shows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, or_, select

from pbm_emergo.db import inbox, outbox, reads
from pbm_emergo.db.models import (
    INBOUND_DEAD,
    OUTBOUND_DEAD,
    InboundMessage,
    OutboundMessage,
    Player,
    PlayerAddress,
)
from pbm_emergo.db.session import Session


def players_matching(stmt: Select[Any], term: str) -> Select[Any]:
    """``stmt`` (players) narrowed to those whose userid, or one of whose addresses,
    contains ``term`` (any letter case)."""
    key = term.strip().lower()
    by_address = select(PlayerAddress.player_id).where(
        PlayerAddress.address_key.contains(key, autoescape=True)
    )
    return stmt.where(
        or_(Player.userid_key.contains(key, autoescape=True), Player.id.in_(by_address))
    )


def dead_inbound() -> Select[Any]:
    """The inbound dead letters, newest first."""
    return (
        select(InboundMessage)
        .where(InboundMessage.status == INBOUND_DEAD)
        .order_by(InboundMessage.id.desc())
    )


def dead_outbound() -> Select[Any]:
    """The outbound dead letters, newest first."""
    return (
        select(OutboundMessage)
        .where(OutboundMessage.status == OUTBOUND_DEAD)
        .order_by(OutboundMessage.id.desc())
    )


class RequeueRefused(Exception):
    """The message cannot go back in its queue: why."""


def requeue_message(session: Session, label: str, now: datetime) -> str:
    """Put the message ``label`` (``in-12``, ``out-7``, as ``admin mail`` shows it) back in
    its queue, as ``admin requeue`` does; its label. Raises :class:`RequeueRefused`."""
    text = label.strip().lower()
    found = [
        (queue, text[len(prefix) :])
        for queue, prefix in reads.QUEUE_PREFIXES.items()
        if text.startswith(prefix)
    ]
    if not found or not found[0][1].isdigit():
        raise RequeueRefused(f"bad message id {label!r}: use in-N or out-N, as listed")
    queue, number = found[0][0], int(found[0][1])
    label = f"{reads.QUEUE_PREFIXES[queue]}{number}"
    requeue = inbox.requeue_inbound if queue == "inbound" else outbox.requeue_outbound
    if requeue(session, number, now):
        return label
    status = reads.message_status(session, queue, number)
    if status is None:
        raise RequeueRefused(f"{label}: no such message")
    if queue == "inbound" and status != "processing":
        raise RequeueRefused(
            f"{label} is {status}: only dead mail is requeued (running a processed mail "
            "again would repeat its commands)"
        )
    raise RequeueRefused(f"{label} is being handled now")


def count_of(stmt: Select[Any]) -> Select[Any]:
    """How many rows ``stmt`` gives (the count of a list above)."""
    return select(func.count()).select_from(stmt.order_by(None).subquery())


__all__ = [
    "RequeueRefused",
    "count_of",
    "dead_inbound",
    "dead_outbound",
    "players_matching",
    "requeue_message",
]
