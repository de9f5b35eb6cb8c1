"""The inbox: received mails, stored once, claimed by the workers, marked done or failed.

A worker's unit of work::

    with factory.begin() as session:           # 1. claim, commit at once
        message = claim_inbound(session, worker=worker_name(), now=utcnow())
    ...                                         # 2. read and answer without a lock, then one
    with factory.begin() as session:           #    short transaction writes the changes and
        if not mark_inbound_done(session, message, utcnow()):  # (the claim re-checked)
            raise LostClaim                     #    the replies and marks the mail done
        enqueue_outbound(session, ..., inbound_id=message.id)

Inbound mail is claimed in arrival order *per board*: a mail is not claimed while an earlier
mail naming one of its boards (``inbound_boards``) is pending or in hand, so several workers
never reorder one board's moves. Attempts are counted at claim time, so a mail that crashes
its worker every time is still dead-lettered after MAX_INBOUND_ATTEMPTS
(:mod:`pbm_emergo.db.claims`, with the workers' names and the release of stale claims).

A claim is one ``UPDATE ... RETURNING`` whose search, on PostgreSQL, is ``FOR UPDATE SKIP
LOCKED`` (``_CLAIM_INBOUND``), so any number of worker processes on any number of machines
share the queue; on SQLite each writing transaction locks the database (``BEGIN
IMMEDIATE``) and claims are conditional UPDATEs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    Connection,
    LargeBinary,
    String,
    Table,
    bindparam,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from pbm_emergo.db import wakeups
from pbm_emergo.db.claims import MAX_INBOUND_ATTEMPTS, ClaimedMail, error_text, released
from pbm_emergo.db.models import (
    INBOUND_DEAD,
    INBOUND_DONE,
    INBOUND_IGNORED,
    INBOUND_PENDING,
    INBOUND_PROCESSING,
    InboundBoard,
    InboundMessage,
)
from pbm_emergo.db.session import rowcount

# The tables, for the statements built once on them (Core: the hot path's statements cost
# less to run than to build as ORM statements).
_inbound = cast(Table, InboundMessage.__table__)
_inbound_boards = cast(Table, InboundBoard.__table__)


# A stored mail as read for its claim or its dead letter: the value, or the row's object
# (the operator's tools and the release of stale claims read rows).
StoredMail = InboundMessage | ClaimedMail

# The columns of a ClaimedMail.
_CLAIMED = (
    _inbound.c.id,
    _inbound.c.raw,
    _inbound.c.envelope_sender,
    _inbound.c.message_id,
    _inbound.c.subject,
    _inbound.c.sender,
    _inbound.c.not_answered,
    _inbound.c.parsed,
    _inbound.c.attempts,
    _inbound.c.claimed_by,
)
_READ_CLAIMED = select(*_CLAIMED).where(_inbound.c.id == bindparam("inbound"))


def read_claimed(connection: Session | Connection, inbound_id: int) -> ClaimedMail | None:
    """The mail ``inbound_id`` as a value (None if it was removed): one plain read, no
    object to keep in step with the row."""
    if isinstance(connection, Session):
        connection = connection.connection()
    row = connection.execute(_READ_CLAIMED, {"inbound": inbound_id}).one_or_none()
    return None if row is None else ClaimedMail(**row._mapping)


@dataclass(frozen=True)
class NewInbound:
    """A received mail with what it is, to store (see :func:`store_inbound_many`): its
    masked command line (``subject``), the boards it names, the address to answer
    (``sender``), why not to answer it, and the listener's parse of it."""

    raw: bytes
    envelope_sender: str
    recipients: Sequence[str]
    message_id: str | None
    received_at: datetime
    subject: str | None = None
    boards: Sequence[int] = ()
    sender: str | None = None
    not_answered: str | None = None
    parsed: dict[str, Any] | None = None
    status: str = INBOUND_PENDING

    def row(self) -> dict[str, Any]:
        return {
            "raw": self.raw,
            "envelope_sender": self.envelope_sender,
            "envelope_recipients": list(self.recipients),
            "message_id": self.message_id,
            "received_at": self.received_at,
            "status": self.status,
            "attempts": 0,
            "subject": self.subject,
            "board_number": self.boards[0] if self.boards else None,
            "sender": self.sender,
            "not_answered": self.not_answered,
            "parsed": self.parsed,
        }


def store_inbound(
    session: Session | Connection,
    raw: bytes,
    envelope_sender: str,
    envelope_recipients: Sequence[str],
    message_id: str | None,
    now: datetime,
    *,
    status: str = INBOUND_PENDING,
    subject: str | None = None,
    boards: Sequence[int] = (),
    sender: str | None = None,
    not_answered: str | None = None,
    parsed: dict[str, Any] | None = None,
) -> tuple[int, bool]:
    """Store one received mail (see :func:`store_inbound_many`); returns (its id, whether
    it is new)."""
    mail = NewInbound(
        raw, envelope_sender, envelope_recipients, message_id, now, subject=subject,
        boards=boards, sender=sender, not_answered=not_answered, parsed=parsed, status=status,
    )
    return store_inbound_many(session, [mail])[0]


def store_inbound_many(
    session: Session | Connection, mails: Sequence[NewInbound]
) -> list[tuple[int, bool]]:
    """Store received mails; returns (its id, whether it is new) for each, in order.

    The same Message-ID from the same envelope sender is stored once: a second copy, also
    one stored at the same moment by another connection or in the same call, gets the
    first one's id and False (say 250 to the sender all the same). The listener's
    transaction is as short as it can be: one ``INSERT ... ON CONFLICT DO NOTHING
    RETURNING`` for all the mails (SQLAlchemy sends the rows as one statement), one
    ``INSERT`` for all their boards, and a ``SELECT`` only for a copy already stored.
    """
    if not mails:
        return []
    bind = session.get_bind() if isinstance(session, Session) else session
    statement = _STORE_INBOUND[bind.dialect.name == "postgresql"]
    # The rows come back in no promised order: each is known by the key the conflict is
    # on. Mails without a Message-ID never conflict but share that key: one at a time.
    keyed = [mail for mail in mails if mail.message_id is not None]
    created: dict[tuple[str, str | None], int] = {}
    if keyed:
        for new_id, sender, message_id in session.execute(
            statement, [mail.row() for mail in keyed]
        ):
            created[(sender, message_id)] = new_id
    results: list[tuple[int, bool]] = []
    boards: list[dict[str, int]] = []
    for mail in mails:
        if mail.message_id is None:
            new_id = session.execute(statement, mail.row()).one()[0]
        else:
            new_id = created.pop((mail.envelope_sender, mail.message_id), None)
        if new_id is None:
            existing = session.scalar(
                select(_inbound.c.id).where(
                    _inbound.c.envelope_sender == mail.envelope_sender,
                    _inbound.c.message_id == mail.message_id,
                )
            )
            assert existing is not None
            results.append((existing, False))
            continue
        results.append((new_id, True))
        boards.extend({"inbound_id": new_id, "board_number": b} for b in mail.boards)
    if boards:
        session.execute(_STORE_INBOUND_BOARD, boards)
    if any(new for _, new in results):
        wakeups.notify_inbox(session)
    return results


def _store_inbound(insert_for: Any) -> Any:
    return (
        insert_for(_inbound)
        .on_conflict_do_nothing(index_elements=["envelope_sender", "message_id"])
        .returning(_inbound.c.id, _inbound.c.envelope_sender, _inbound.c.message_id)
    )


# Built once, on the tables (Core): the listener runs these for every mail, and building an
# ORM statement with its values cost more than running it.
_STORE_INBOUND = (_store_inbound(sqlite_insert), _store_inbound(pg_insert))
_STORE_INBOUND_BOARD = insert(_inbound_boards)


def enqueue_inbound(
    session: Session,
    raw: bytes,
    envelope_sender: str,
    envelope_recipients: Sequence[str],
    message_id: str | None,
    now: datetime,
    **facts: Any,
) -> tuple[InboundMessage, bool]:
    """:func:`store_inbound`, returning the stored message itself (created or not)."""
    message_id_, created = store_inbound(
        session, raw, envelope_sender, envelope_recipients, message_id, now, **facts
    )
    message = session.get(InboundMessage, message_id_)
    assert message is not None
    return message, created


def _claim_inbound(*, skip_locked: bool, returning: tuple[Any, ...] = (_inbound.c.id,)) -> Any:
    """``UPDATE`` the oldest pending mail none of whose boards has an earlier unfinished
    mail to claimed ``RETURNING`` it: the search and the claim in one statement.

    Core, on the tables: an ORM ``UPDATE`` of the mapped class would first look for the
    session's objects to keep in step (none: the claim has a session of its own), and the
    cache key of the statement with its ORM aliases cost more to make; together they were
    about half of a claim, inside the write lock."""
    candidate = _inbound.alias("candidate")
    mine = _inbound_boards.alias("mine")
    theirs = _inbound_boards.alias("theirs")
    earlier = _inbound.alias("earlier")
    blocked = (
        select(theirs.c.inbound_id)
        .join(mine, mine.c.board_number == theirs.c.board_number)
        .join(earlier, earlier.c.id == theirs.c.inbound_id)
        .where(
            mine.c.inbound_id == candidate.c.id,
            theirs.c.inbound_id < candidate.c.id,
            # Not IN (...): SQLAlchemy renders an IN of constants again at every run.
            or_(earlier.c.status == INBOUND_PENDING, earlier.c.status == INBOUND_PROCESSING),
        )
        .exists()
    )
    oldest = (
        select(candidate.c.id)
        .where(candidate.c.status == INBOUND_PENDING, ~blocked)
        .order_by(candidate.c.id)
        .limit(1)
    )
    if skip_locked:
        oldest = oldest.with_for_update(skip_locked=True)
    return (
        update(_inbound)
        .where(_inbound.c.id == oldest.scalar_subquery(),
               _inbound.c.status == INBOUND_PENDING)
        .values(
            status=INBOUND_PROCESSING,
            attempts=_inbound.c.attempts + 1,
            claimed_by=bindparam("worker"),
            claimed_at=bindparam("now"),
        )
        .returning(*returning)
    )


# Built once: making a statement costs more than running it.
_ANY_PENDING_INBOUND = (
    select(InboundMessage.id).where(InboundMessage.status == INBOUND_PENDING).limit(1)
)
_CLAIM_INBOUND = (_claim_inbound(skip_locked=False), _claim_inbound(skip_locked=True))
_CLAIM_INBOUND_MAIL = (
    _claim_inbound(skip_locked=False, returning=_CLAIMED),
    _claim_inbound(skip_locked=True, returning=_CLAIMED),
)


def claim_inbound_id(
    connection: Session | Connection, *, worker: str, now: datetime
) -> int | None:
    """Claim the oldest pending mail none of whose boards has an earlier unfinished mail,
    counting an attempt (one statement; on PostgreSQL a row another worker is claiming is
    skipped); returns its id. Commit right away, then read the mail outside the write
    transaction: loading it (its raw text, its parse) is most of a claim's cost, and SQLite's
    one write lock is not held for that (the claim of a worker's next mail, at the end of the
    write transaction of its last one, reads it at once: :func:`claim_inbound_mail`).
    ``connection``: a session's, or one of its own."""
    claimed: int | None = _claim(connection, _CLAIM_INBOUND, worker, now).scalar()
    return claimed


def claim_inbound_mail(
    connection: Session | Connection, *, worker: str, now: datetime
) -> ClaimedMail | None:
    """:func:`claim_inbound_id`, returning the claimed mail as a value: for a claim at the
    end of a write transaction that holds the write lock anyway (the claim of a worker's
    next mail, :meth:`~pbm_emergo.mail.answering.CommandsRunner.claim_next`), so that the
    mail is not read again after it."""
    row = _claim(connection, _CLAIM_INBOUND_MAIL, worker, now).one_or_none()
    return None if row is None else ClaimedMail(**row._mapping)


def _claim(
    connection: Session | Connection, statements: tuple[Any, Any], worker: str, now: datetime
) -> Any:
    """The claim statement of ``statements`` for the connection's database (the second on
    PostgreSQL: rows another worker is claiming skipped), run."""
    if isinstance(connection, Session):
        connection = connection.connection()
    postgresql = connection.dialect.name == "postgresql"
    return connection.execute(statements[postgresql], {"worker": worker, "now": now})


def claim_inbound(session: Session, *, worker: str, now: datetime) -> InboundMessage | None:
    """:func:`claim_inbound_id`, returning the claimed mail itself (read in the same
    transaction)."""
    claimed = claim_inbound_id(session, worker=worker, now=now)
    return None if claimed is None else session.get(
        InboundMessage, claimed, populate_existing=True
    )


def _release_inbound(
    session: Session, message: StoredMail, now: datetime, **values: object
) -> bool:
    """End ``message``'s claim with ``values``, if its claim (``claimed_by``) still holds:
    one conditional UPDATE, which is also the check. A row's object (attached or not) is
    given the values without reading the row back."""
    values = {"claimed_by": None, "claimed_at": None, **values}
    result = session.execute(
        update(InboundMessage)
        .where(
            InboundMessage.id == message.id,
            InboundMessage.status == INBOUND_PROCESSING,
            InboundMessage.claimed_by == message.claimed_by,
        )
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    return released(session, message, result, values)


def mark_inbound_done(
    session: Session,
    message: StoredMail,
    now: datetime,
    *,
    status: str = INBOUND_DONE,
    note: str | None = None,
    raw: bytes | None = None,
    subject: str | None = None,
) -> bool:
    """Mark a claimed message processed (``status="ignored"`` for one deliberately not run,
    ``note`` saying why, in last_error; ``raw``: the copy to keep instead of the mail as
    received, its passwords taken out; ``subject``: the command as it may be shown now, in
    place of the one masked on receipt). Returns False, changing nothing, if the claim was
    lost (expired and taken by another worker): the caller should then roll back."""
    # One statement built once (this runs for every mail). The parse goes with the mail as
    # received (it holds what the raw text holds).
    result = session.connection().execute(
        _MARK_INBOUND_DONE,
        {"inbound": message.id, "claim": message.claimed_by, "done": status, "now": now,
         "kept": raw, "note": note, "shown": subject},
    )
    values: dict[str, object] = {"claimed_by": None, "claimed_at": None, "status": status,
                                 "processed_at": now, "parsed": None}
    if raw is not None:
        values["raw"] = raw
    if subject is not None:
        values["subject"] = subject
    if note is not None:
        values["last_error"] = note
    return released(session, message, result, values)


# The mail ``:inbound`` while the claim ``:claim`` holds (a conditional UPDATE's check).
_CLAIM_HELD = (
    _inbound.c.id == bindparam("inbound"),
    _inbound.c.status == INBOUND_PROCESSING,
    _inbound.c.claimed_by == bindparam("claim"),
)
_MARK_INBOUND_DONE = (
    update(_inbound)
    .where(*_CLAIM_HELD)
    .values(
        claimed_by=None,
        claimed_at=None,
        status=bindparam("done"),
        processed_at=bindparam("now"),
        parsed=None,
        raw=func.coalesce(bindparam("kept", type_=LargeBinary), _inbound.c.raw),
        last_error=func.coalesce(bindparam("note", type_=String), _inbound.c.last_error),
        subject=func.coalesce(bindparam("shown", type_=String), _inbound.c.subject),
    )
)


def renew_inbound_claim(session: Session, message: StoredMail, now: datetime) -> bool:
    """Whether this worker still holds its claim on ``message`` (in the write transaction
    of a step of a long mail: a line of a ``multiple`` mail), renewed: its time is now."""
    result = session.connection().execute(
        _RENEW_INBOUND_CLAIM, {"inbound": message.id, "claim": message.claimed_by, "now": now}
    )
    return rowcount(result) == 1


_RENEW_INBOUND_CLAIM = update(_inbound).where(*_CLAIM_HELD).values(claimed_at=bindparam("now"))


def mark_inbound_failed(
    session: Session, message: StoredMail, error: str | BaseException, now: datetime
) -> bool:
    """Record a failed attempt: back to pending, or dead after MAX_INBOUND_ATTEMPTS.
    Returns False if the claim was lost. Call it in a new transaction after rolling back
    the failed one."""
    status = INBOUND_DEAD if message.attempts >= MAX_INBOUND_ATTEMPTS else INBOUND_PENDING
    return _release_inbound(
        session, message, now, status=status, last_error=error_text(error), processed_at=None
    )


def expire_raw(session: Session, received_before: datetime) -> int:
    """Remove the raw text of every finished mail (done, ignored or dead) received before
    ``received_before``: the retention period of mail as received. Returns how many."""
    result = session.execute(
        update(InboundMessage)
        .where(
            InboundMessage.received_at < received_before,
            InboundMessage.status.in_((INBOUND_DONE, INBOUND_IGNORED, INBOUND_DEAD)),
            func.length(InboundMessage.raw) > 0,
        )
        .values(raw=b"", parsed=None)
        .execution_options(synchronize_session=False)
    )
    return rowcount(result)


def requeue_inbound(session: Session, message_id: int, now: datetime) -> bool:
    """Put a dead inbound message back in the queue with a fresh attempt count.
    Returns False if there is no such message or it is not dead: a processed mail is never
    run twice (its commands would be repeated), and one in hand is being processed; nor a
    dead letter whose raw text has expired (nothing is left to run)."""
    result = session.execute(
        update(InboundMessage)
        .where(
            InboundMessage.id == message_id,
            InboundMessage.status == INBOUND_DEAD,
            func.length(InboundMessage.raw) > 0,
        )
        .values(status=INBOUND_PENDING, attempts=0, claimed_by=None, claimed_at=None)
        .execution_options(synchronize_session=False)
    )
    return rowcount(result) == 1


def inbound_pending(session: Session) -> bool:
    """Whether any inbound mail waits (a cheap read before :func:`claim_inbound`'s write)."""
    return session.scalar(_ANY_PENDING_INBOUND) is not None


__all__ = [
    "ClaimedMail",
    "NewInbound",
    "StoredMail",
    "claim_inbound",
    "claim_inbound_id",
    "enqueue_inbound",
    "expire_raw",
    "inbound_pending",
    "mark_inbound_done",
    "mark_inbound_failed",
    "read_claimed",
    "renew_inbound_claim",
    "requeue_inbound",
    "store_inbound",
    "store_inbound_many",
]
