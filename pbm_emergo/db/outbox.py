"""The outbox: replies and notices queued for sending, claimed by the sender in batches,
marked sent, or failed and retried with a backoff.

A claim is one ``UPDATE ... RETURNING`` whose search, on PostgreSQL, is ``FOR UPDATE SKIP
LOCKED`` (``_CLAIM_OUTBOUND``), so any number of senders share the queue; a sender's claim
whose lease ran out (:data:`pbm_emergo.db.claims.DEFAULT_LEASE`) may be taken over.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import (
    Connection,
    Select,
    Table,
    and_,
    bindparam,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from pbm_emergo.db.claims import DEFAULT_LEASE, error_text
from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import (
    OUTBOUND_DEAD,
    OUTBOUND_FAILED,
    OUTBOUND_PENDING,
    OUTBOUND_SENDING,
    OUTBOUND_SENT,
    OutboundMessage,
    OutboundText,
)
from pbm_emergo.db.session import rowcount

# With the default backoff (30 s doubling up to 1 h) this is about two days of retries.
MAX_OUTBOUND_ATTEMPTS = 55
DEFAULT_BASE_DELAY = timedelta(seconds=30)
DEFAULT_MAX_DELAY = timedelta(hours=1)

# The table, for the statements built once on it (Core: the hot path's statements cost less
# to run than to build as ORM statements).
_outbound = cast(Table, OutboundMessage.__table__)
# The mails' bytes, a row each beside the mail's (see models.OutboundText).
_texts = cast(Table, OutboundText.__table__)


def enqueue_outbound(
    session: Session,
    recipient: str,
    raw: bytes,
    now: datetime,
    *,
    inbound_id: int | None = None,
    message_id: str | None = None,
    subject: str | None = None,
    board_number: int | None = None,
    status: str = OUTBOUND_PENDING,
    last_error: str | None = None,
) -> OutboundMessage:
    """Queue one mail for one recipient (stored lower-case), due now (``status="failed"``
    with ``last_error``: kept but not sent); returns the stored row."""
    [stored] = queue_outbound(session, [outbound_row(
        recipient, raw, now, inbound_id=inbound_id, message_id=message_id,
        subject=subject, board_number=board_number, status=status, last_error=last_error,
    )])  # fmt: skip
    return session.get_one(OutboundMessage, stored)


def outbound_row(
    recipient: str,
    raw: bytes,
    now: datetime,
    *,
    inbound_id: int | None = None,
    message_id: str | None = None,
    subject: str | None = None,
    board_number: int | None = None,
    status: str = OUTBOUND_PENDING,
    last_error: str | None = None,
    charged_to: str | None = None,
    charged_account: int | None = None,
    due: datetime | None = None,
    secret: bool = False,
) -> dict[str, Any]:
    """The outbox row of one mail (see :func:`enqueue_outbound`), for :func:`queue_outbound`
    (``raw``: the bytes, stored in ``outbound_texts``): sent from ``due`` on (default now);
    ``charged_to``: the sender whose budget of mails to others it counts against,
    ``charged_account``: the account (player id) whose budget it counts against too;
    ``secret``: its text is removed once it leaves the outbox."""
    return {
        "recipient": recipient.strip().lower(),
        "raw": raw,
        "message_id": message_id,
        "subject": subject,
        "board_number": board_number,
        "created_at": now,
        "status": status,
        "last_error": last_error,
        "attempts": 0,
        "next_attempt_at": now if due is None else due,
        "inbound_id": inbound_id,
        "charged_to": charged_to.strip().lower() if charged_to else None,
        "charged_account": charged_account,
        "secret": secret,
    }


#: The note of a board mail held for a robot's answer (app.outbox: one mail a turn).
AWAITING_ROBOT = "held for the robot's answer, which takes its place"


def take_over_held(
    session: Session, board: int, recipient: str, raw: bytes, now: datetime, *,
    message_id: str | None, subject: str | None,
) -> bool:
    """Put the mail ``raw`` in the place of the board mail to ``recipient`` held for a
    robot's answer on ``board``, if one is still held (pending, not claimed): it keeps its
    row (the mail it answers, its place in the hourly count) and is due now. False when
    none is held (the robot answered after the wait: the held mail went alone)."""
    held = session.scalar(
        select(_outbound.c.id)
        .where(
            _outbound.c.board_number == board,
            _outbound.c.recipient == recipient.strip().lower(),
            _outbound.c.status == OUTBOUND_PENDING,
            _outbound.c.last_error == AWAITING_ROBOT,
        )
        .order_by(_outbound.c.id.desc())
        .limit(1)
    )
    if held is None:
        return False
    taken = session.execute(
        update(_outbound)
        .where(_outbound.c.id == held, _outbound.c.status == OUTBOUND_PENDING,
               _outbound.c.last_error == AWAITING_ROBOT)
        .values(message_id=message_id, subject=subject, last_error=None, next_attempt_at=now)
    )
    if rowcount(taken) != 1:
        return False
    session.execute(update(_texts).where(_texts.c.id == held).values(raw=raw))
    return True


def queue_outbound(session: Session, rows: Sequence[dict[str, Any]]) -> list[int]:
    """Store outbox rows (:func:`outbound_row`): one INSERT of the mails, one of their bytes;
    their ids, in the order of ``rows``."""
    if not rows:
        return []
    connection = session.connection()
    mails = [{k: v for k, v in row.items() if k != "raw"} for row in rows]
    keys = [row["message_id"] for row in rows]
    if None not in keys and len(set(keys)) == len(keys):
        # Each new id paired with its row by the row's Message-ID: one INSERT of all the
        # rows (SQLite's RETURNING promises no order, and asking SQLAlchemy for the rows'
        # order makes it an INSERT a row there).
        found = {key: id_ for key, id_ in connection.execute(_QUEUE_OUTBOUND, mails)}
        ids = [found[key] for key in keys]
    else:
        ids = list(connection.execute(_QUEUE_OUTBOUND_IN_ORDER, mails).scalars())
    connection.execute(
        _QUEUE_TEXTS, [{"id": id_, "raw": row["raw"]} for id_, row in zip(ids, rows, strict=True)]
    )
    return ids


_QUEUE_OUTBOUND = insert(_outbound).returning(_outbound.c.message_id, _outbound.c.id)
_QUEUE_OUTBOUND_IN_ORDER = insert(_outbound).returning(
    _outbound.c.id, sort_by_parameter_order=True
)
_QUEUE_TEXTS = insert(_texts)


# A mail the sender may claim: due and pending, or claimed by a sender whose lease ran out
# (parameters ``now`` and ``stale_before``, that is now - lease). One expression for the
# look before claiming and for the claim.
_OUTBOUND_CLAIMABLE = or_(
    and_(_outbound.c.status == OUTBOUND_PENDING,
         _outbound.c.next_attempt_at <= bindparam("now")),
    and_(_outbound.c.status == OUTBOUND_SENDING,
         _outbound.c.claimed_at < bindparam("stale_before")),
)
_ANY_OUTBOUND_DUE = select(_outbound.c.id).where(_OUTBOUND_CLAIMABLE).limit(1)


def outbound_due(session: Session, now: datetime, *, lease: timedelta = DEFAULT_LEASE) -> bool:
    """Whether :func:`claim_due_outbound` would find something (a cheap read first, so that
    an idle sender never takes SQLite's write lock)."""
    found = session.execute(_ANY_OUTBOUND_DUE, {"now": now, "stale_before": now - lease})
    return found.first() is not None


#: The most mails the sender claims at once (its batch).
OUTBOUND_BATCH = 10


def claim_due_outbound_ids(
    session: Session | Connection,
    worker: str,
    now: datetime,
    *,
    limit: int = OUTBOUND_BATCH,
    lease: timedelta = DEFAULT_LEASE,
) -> list[int]:
    """Claim up to ``limit`` messages due for sending (oldest first), counting an attempt;
    returns their ids, oldest first. Commit right away, read the mails outside the write
    transaction (:func:`outbound_by_ids`), send, then mark each sent or failed in a new
    transaction.

    One Core statement on the table, the search and the claim together (on PostgreSQL rows
    another sender is claiming are skipped): the sender runs it inside the write lock for
    every batch, and the ORM's select-then-update cost four times as much."""
    connection = session.connection() if isinstance(session, Session) else session
    postgresql = connection.dialect.name == "postgresql"
    claimed = connection.execute(
        _CLAIM_OUTBOUND[postgresql],
        {"worker": worker, "now": now, "stale_before": now - lease, "limit": limit},
    ).all()
    # RETURNING promises no order: oldest first, as the search took them.
    return [row.id for row in sorted(claimed, key=lambda row: (row.next_attempt_at, row.id))]


def _claim_outbound(*, skip_locked: bool) -> Any:
    """``UPDATE`` the oldest due mails (up to ``limit``) to claimed ``RETURNING`` them."""
    due = (
        select(_outbound.c.id)
        .where(_OUTBOUND_CLAIMABLE)
        .order_by(_outbound.c.next_attempt_at, _outbound.c.id)
        .limit(bindparam("limit"))
    )
    if skip_locked:
        # PostgreSQL may run an IN (subquery) more than once in an UPDATE, and with SKIP
        # LOCKED each run can find other rows (more than ``limit`` were claimed): the
        # search is a CTE it runs once (MATERIALIZED).
        found = due.with_for_update(skip_locked=True).cte("due").prefix_with("MATERIALIZED")
        due = select(found.c.id)
    return (
        update(_outbound)
        .where(_outbound.c.id.in_(due), _OUTBOUND_CLAIMABLE)
        .values(
            status=OUTBOUND_SENDING,
            claimed_by=bindparam("worker"),
            claimed_at=bindparam("now"),
            attempts=_outbound.c.attempts + 1,
        )
        .returning(_outbound.c.id, _outbound.c.next_attempt_at)
    )


_CLAIM_OUTBOUND = (_claim_outbound(skip_locked=False), _claim_outbound(skip_locked=True))


@dataclass(frozen=True)
class ClaimedOutbound:
    """A queued mail as its sender read it once claimed: what delivering it and recording
    the outcome need, as a value (its claim, ``claimed_by``, is what the record re-checks)."""

    id: int
    recipient: str
    raw: bytes
    attempts: int
    claimed_by: str | None
    # Its text is removed once it leaves the outbox for good (:data:`REMOVED_SECRET`).
    secret: bool


_READ_CLAIMED_OUTBOUND = (
    select(
        _outbound.c.id,
        _outbound.c.recipient,
        _texts.c.raw,
        _outbound.c.attempts,
        _outbound.c.claimed_by,
        _outbound.c.secret,
    )
    .join_from(_outbound, _texts, _texts.c.id == _outbound.c.id)
    .where(_outbound.c.id.in_(bindparam("ids", expanding=True)))
)


def outbound_by_ids(session: Session, ids: Sequence[int]) -> list[ClaimedOutbound]:
    """The outbound mails ``ids``, in that order, as stored now (one plain read)."""
    if not ids:
        return []
    rows = session.connection().execute(_READ_CLAIMED_OUTBOUND, {"ids": list(ids)})
    found = {row.id: ClaimedOutbound(**row._mapping) for row in rows}
    return [found[i] for i in ids if i in found]


def claim_due_outbound(
    session: Session,
    worker: str,
    now: datetime,
    *,
    limit: int = OUTBOUND_BATCH,
    lease: timedelta = DEFAULT_LEASE,
) -> list[ClaimedOutbound]:
    """:func:`claim_due_outbound_ids`, returning the claimed mails (read in the same
    transaction)."""
    ids = claim_due_outbound_ids(session, worker, now, limit=limit, lease=lease)
    return outbound_by_ids(session, ids)


# What replaces the text of a mail that carried a secret once it is sent or given up.
REMOVED_SECRET = b"(removed from the outbox: this mail carried a password)\r\n"


def _remove_secrets(session: Session, messages: Sequence[ClaimedOutbound]) -> None:
    """Replace the text of those of ``messages`` that carried a secret (they left the
    outbox for good)."""
    ids = [m.id for m in messages if m.secret]
    if ids:
        session.execute(_REMOVE_SECRETS, {"ids": ids})


_REMOVE_SECRETS = (
    update(_texts)
    .where(_texts.c.id.in_(bindparam("ids", expanding=True)))
    .values(raw=REMOVED_SECRET)
)


def _release_outbound(
    session: Session, message: ClaimedOutbound, *, gone: bool, **values: object
) -> bool:
    """End ``message``'s claim with ``values``, if its claim still holds (one conditional
    UPDATE, which is also the check); ``gone``: the mail leaves the outbox for good (sent or
    given up), and a secret one's text with it."""
    result = session.execute(
        update(_outbound)
        .where(
            _outbound.c.id == message.id,
            _outbound.c.status == OUTBOUND_SENDING,
            _outbound.c.claimed_by == message.claimed_by,
        )
        .values(claimed_by=None, claimed_at=None, **values)
    )
    held = rowcount(result) == 1
    if held and gone:
        _remove_secrets(session, [message])
    return held


def mark_outbound_sent(session: Session, message: ClaimedOutbound, now: datetime) -> bool:
    """The relay accepted the message. Returns False if the claim was lost."""
    return _release_outbound(
        session, message, gone=True, status=OUTBOUND_SENT, sent_at=now, last_error=None
    )


def mark_outbound_sent_many(
    session: Session, messages: Sequence[ClaimedOutbound], now: datetime
) -> set[int]:
    """:func:`mark_outbound_sent` for a batch claimed by one worker, in one UPDATE; returns
    the ids whose claim still held (the others were taken over meanwhile)."""
    if not messages:
        return set()
    worker = messages[0].claimed_by
    assert all(m.claimed_by == worker for m in messages), "one worker's batch"
    held = set(
        session.scalars(
            _MARK_OUTBOUND_SENT,
            {"ids": [m.id for m in messages], "worker": worker, "now": now},
        )
    )
    _remove_secrets(session, [m for m in messages if m.id in held])
    return held


# Core, on the table, built once (as the claim): the sender runs it inside the write lock.
_MARK_OUTBOUND_SENT = (
    update(_outbound)
    .where(
        _outbound.c.id.in_(bindparam("ids", expanding=True)),
        _outbound.c.status == OUTBOUND_SENDING,
        _outbound.c.claimed_by == bindparam("worker"),
    )
    .values(status=OUTBOUND_SENT, sent_at=bindparam("now"), last_error=None,
            claimed_by=None, claimed_at=None)
    .returning(_outbound.c.id)
)


def retry_delay(
    attempts: int,
    base_delay: timedelta = DEFAULT_BASE_DELAY,
    max_delay: timedelta = DEFAULT_MAX_DELAY,
) -> timedelta:
    """Exponential backoff: base, 2 x base, 4 x base, ... capped at ``max_delay``."""
    delay: timedelta = base_delay * (2 ** max(attempts - 1, 0))
    return min(delay, max_delay)


def mark_outbound_failed(
    session: Session,
    message: ClaimedOutbound,
    error: str | BaseException,
    now: datetime,
    *,
    permanent: bool = False,
    base_delay: timedelta = DEFAULT_BASE_DELAY,
    max_delay: timedelta = DEFAULT_MAX_DELAY,
) -> str | None:
    """Record a failed delivery. ``permanent`` (a 5xx answer): status failed, no retry.
    Otherwise (4xx, connection trouble) pending again after an exponential backoff, or dead
    after MAX_OUTBOUND_ATTEMPTS. Returns the status the mail is in now, None if the claim
    was lost."""
    if permanent:
        status, next_at = OUTBOUND_FAILED, now
    elif message.attempts >= MAX_OUTBOUND_ATTEMPTS:
        status, next_at = OUTBOUND_DEAD, now
    else:
        status = OUTBOUND_PENDING
        next_at = now + retry_delay(message.attempts, base_delay, max_delay)
    held = _release_outbound(
        session, message, gone=status != OUTBOUND_PENDING, status=status,
        next_attempt_at=next_at, last_error=error_text(error),
    )
    return status if held else None


def requeue_outbound(session: Session, message_id: int, now: datetime) -> bool:
    """Send an outbound message again (typically failed or dead), due now, fresh attempts.
    Returns False if there is no such message or it is being sent."""
    result = session.execute(
        update(OutboundMessage)
        .where(OutboundMessage.id == message_id, OutboundMessage.status != OUTBOUND_SENDING)
        .values(
            status=OUTBOUND_PENDING,
            attempts=0,
            next_attempt_at=now,
            claimed_by=None,
            claimed_at=None,
        )
        .execution_options(synchronize_session=False)
    )
    return rowcount(result) == 1


def replies_sent_to_each(
    session: Session, recipients: Sequence[str], since: datetime
) -> dict[str, int]:
    """:func:`replies_sent_to` for several recipients in one query (lower-cased keys)."""
    keys = sorted({r.strip().lower() for r in recipients})
    counts = dict.fromkeys(keys, 0)
    if keys:
        parameters: dict[str, Any] = {f"key{i}": key for i, key in enumerate(keys)}
        parameters["since"] = since
        rows = session.connection().execute(_sent_to_each(len(keys)), parameters)
        counts.update({recipient: int(count) for recipient, count in rows})
    return counts


@functools.lru_cache(maxsize=8)
def _sent_to_each(count: int) -> Select[Any]:
    """The statement of :func:`replies_sent_to_each` for ``count`` recipients, built once
    for each count (the worker runs it for every mail it answers, mostly for one or two):
    a bound parameter a recipient, as an IN of a list's values (an "expanding" parameter)
    is rendered again at every run."""
    return (
        select(_outbound.c.recipient, func.count())
        .where(_outbound.c.recipient.in_([bindparam(f"key{i}") for i in range(count)]),
               _outbound.c.created_at >= bindparam("since"))
        .group_by(_outbound.c.recipient)
    )


def replies_sent_to(session: Session, recipient: str, since: datetime) -> int:
    """How many outbound messages were queued for ``recipient`` since ``since`` (for the
    per-address reply limit)."""
    # Recipients are stored lower-case (enqueue_outbound): a plain comparison uses the index.
    count = session.scalar(
        select(func.count())
        .select_from(OutboundMessage)
        .where(
            OutboundMessage.recipient == recipient.strip().lower(),
            OutboundMessage.created_at >= since,
        )
    )
    return int(count or 0)


def mails_charged_to(session: Session, sender: str, since: datetime) -> int:
    """How many mails to other people the mails of ``sender`` caused since ``since`` (its
    budget of mails to others, see game.budget)."""
    if not sender:
        return 0
    count = session.scalar(
        select(func.count())
        .select_from(OutboundMessage)
        .where(
            OutboundMessage.charged_to == sender.strip().lower(),
            OutboundMessage.created_at >= since,
        )
    )
    return int(count or 0)


def mails_charged_to_account(session: Session, account_id: int, since: datetime) -> int:
    """How many mails to other people the logged-in commands of the account ``account_id``
    caused since ``since``, from whatever address (its budget of mails to others)."""
    count = session.scalar(
        select(func.count())
        .select_from(OutboundMessage)
        .where(
            OutboundMessage.charged_account == account_id,
            OutboundMessage.created_at >= since,
        )
    )
    return int(count or 0)


def recheck_mail_budget(
    session: Session,
    sender: str,
    account_id: int | None,
    *,
    count: int,
    account_count: int,
    per_hour: int,
    per_account_hour: int,
    since: datetime,
) -> None:
    """:class:`Conflict` unless ``count`` more mails to others still fit in ``sender``'s
    hourly budget ``per_hour``, and ``account_count`` more in the account's
    ``per_account_hour``, counted now (in the write transaction) from ``since``."""
    if count and mails_charged_to(session, sender, since) + count > per_hour:
        raise Conflict("The sender's mails to others were charged meanwhile.")
    if (
        account_id is not None and account_count
        and mails_charged_to_account(session, account_id, since) + account_count
        > per_account_hour
    ):
        raise Conflict("The account's mails to others were charged meanwhile.")


def mail_sent_since(session: Session, recipient: str, subject: str, since: datetime) -> bool:
    """Whether a mail with ``subject`` was queued for ``recipient`` since ``since``."""
    found = session.scalar(
        select(OutboundMessage.id)
        .where(
            OutboundMessage.recipient == recipient.strip().lower(),
            OutboundMessage.created_at >= since,
            OutboundMessage.subject == subject,
        )
        .limit(1)
    )
    return found is not None


def next_outbound_due(session: Session) -> datetime | None:
    """When the next pending outbound mail is due (for the sender's sleep)."""
    return session.scalar(
        select(func.min(OutboundMessage.next_attempt_at)).where(
            OutboundMessage.status == OUTBOUND_PENDING
        )
    )


__all__ = [
    "DEFAULT_BASE_DELAY",
    "DEFAULT_MAX_DELAY",
    "MAX_OUTBOUND_ATTEMPTS",
    "claim_due_outbound",
    "claim_due_outbound_ids",
    "enqueue_outbound",
    "mail_sent_since",
    "mails_charged_to",
    "mails_charged_to_account",
    "mark_outbound_failed",
    "mark_outbound_sent",
    "mark_outbound_sent_many",
    "next_outbound_due",
    "outbound_by_ids",
    "outbound_due",
    "outbound_row",
    "queue_outbound",
    "recheck_mail_budget",
    "replies_sent_to",
    "replies_sent_to_each",
    "requeue_outbound",
    "retry_delay",
    "AWAITING_ROBOT",
    "take_over_held",
]
