"""The durable mail queues: inbound messages (the inbox) and outbound messages (the outbox).

One module, one claim, one stale-claim and dead-letter policy. A worker's unit of work::

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
its worker every time is still dead-lettered after MAX_INBOUND_ATTEMPTS.

A claim names its worker (``host:pid:instance:thread``; the instance is a random id made
when the process starts). :func:`release_stale_claims` puts back the claims of workers that
are gone: at once for a process on this host that no longer exists, or whose pid is now
another process's (a server restarted as PID 1 in a container has its predecessor's pid),
after the lease for any other; a mail whose attempts are used up goes to the dead letters.

A claim is one ``UPDATE ... RETURNING`` whose search, on PostgreSQL, is ``FOR UPDATE SKIP
LOCKED`` (``_CLAIM_INBOUND``, ``_CLAIM_OUTBOUND``), so any number of worker processes on any
number of machines share the queues; on SQLite each writing transaction locks the database
(``BEGIN IMMEDIATE``) and claims are conditional UPDATEs.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (
    Connection,
    LargeBinary,
    Result,
    String,
    Table,
    and_,
    bindparam,
    func,
    insert,
    inspect,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from pbm_emergo.db.models import (
    INBOUND_DEAD,
    INBOUND_DONE,
    INBOUND_IGNORED,
    INBOUND_PENDING,
    INBOUND_PROCESSING,
    OUTBOUND_DEAD,
    OUTBOUND_FAILED,
    OUTBOUND_PENDING,
    OUTBOUND_SENDING,
    OUTBOUND_SENT,
    InboundBoard,
    InboundMessage,
    OutboundMessage,
)
from pbm_emergo.db.session import rowcount

MAX_INBOUND_ATTEMPTS = 5
# With the default backoff (30 s doubling up to 1 h) this is about two days of retries.
MAX_OUTBOUND_ATTEMPTS = 55
DEFAULT_LEASE = timedelta(minutes=10)
DEFAULT_BASE_DELAY = timedelta(seconds=30)
DEFAULT_MAX_DELAY = timedelta(hours=1)
ERROR_LENGTH = 4000  # last_error keeps the end of longer texts

def _error_text(error: str | BaseException) -> str:
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return text[-ERROR_LENGTH:]


def _new_instance() -> None:
    global _INSTANCE
    _INSTANCE = secrets.token_hex(6)


# This process's instance: a new one in every process (a forked child makes its own), so
# that a claim never looks like ours because an earlier process had our pid.
_INSTANCE = ""
_new_instance()
os.register_at_fork(after_in_child=_new_instance)


# The tables, for the statements built once on them (Core: the hot path's statements cost
# less to run than to build as ORM statements).
_inbound = cast(Table, InboundMessage.__table__)
_inbound_boards = cast(Table, InboundBoard.__table__)
_outbound = cast(Table, OutboundMessage.__table__)


def _host() -> str:
    return socket.gethostname()[:64]  # so that host, pid and instance always fit


def worker_name() -> str:
    """``host:pid:instance:thread``, the value of ``claimed_by`` for claims made by this
    thread (``instance``: a random id made when this process started)."""
    name = threading.current_thread().name
    return f"{_host()}:{os.getpid()}:{_INSTANCE}:{name}"[:128]


# --- inbound ---------------------------------------------------------------------------


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


def _claim_inbound(*, skip_locked: bool) -> Any:
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
            earlier.c.status.in_((INBOUND_PENDING, INBOUND_PROCESSING)),
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
        .returning(_inbound.c.id)
    )


# Built once: making a statement costs more than running it.
_ANY_PENDING_INBOUND = (
    select(InboundMessage.id).where(InboundMessage.status == INBOUND_PENDING).limit(1)
)
_CLAIM_INBOUND = (_claim_inbound(skip_locked=False), _claim_inbound(skip_locked=True))


def claim_inbound_id(session: Session, *, worker: str, now: datetime) -> int | None:
    """Claim the oldest pending mail none of whose boards has an earlier unfinished mail,
    counting an attempt (one statement; on PostgreSQL a row another worker is claiming is
    skipped); returns its id. Commit right away, then read the mail outside the write
    transaction: loading it (its raw text, its parse) is most of a claim's cost, and SQLite's
    one write lock is not held for that."""
    postgresql = session.get_bind().dialect.name == "postgresql"
    claimed: int | None = session.execute(
        _CLAIM_INBOUND[postgresql], {"worker": worker, "now": now}
    ).scalar()
    return claimed


def claim_inbound(session: Session, *, worker: str, now: datetime) -> InboundMessage | None:
    """:func:`claim_inbound_id`, returning the claimed mail itself (read in the same
    transaction)."""
    claimed = claim_inbound_id(session, worker=worker, now=now)
    return None if claimed is None else session.get(
        InboundMessage, claimed, populate_existing=True
    )


def _release_inbound(
    session: Session, message: InboundMessage, now: datetime, **values: object
) -> bool:
    """End ``message``'s claim with ``values``, if its claim (``claimed_by``) still holds:
    one conditional UPDATE, which is also the check. The object (attached or not) is given
    the values without reading the row back."""
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
    return _released(session, message, result, values)


def _released(
    session: Session, message: InboundMessage, result: Result[Any], values: dict[str, object]
) -> bool:
    """After the conditional UPDATE that ends a claim: give the object ``values`` (the
    claim held), or read it back (it did not) and say so."""
    if rowcount(result) != 1:
        if inspect(message).session is session:
            session.refresh(message)
        return False
    for key, value in values.items():
        set_committed_value(message, key, value)
    return True


def mark_inbound_done(
    session: Session,
    message: InboundMessage,
    now: datetime,
    *,
    status: str = INBOUND_DONE,
    note: str | None = None,
    raw: bytes | None = None,
) -> bool:
    """Mark a claimed message processed (``status="ignored"`` for one deliberately not run,
    ``note`` saying why, in last_error; ``raw``: the copy to keep instead of the mail as
    received, its passwords taken out). Returns False, changing nothing, if the claim was
    lost (expired and taken by another worker): the caller should then roll back."""
    # One statement built once (this runs for every mail). The parse goes with the mail as
    # received (it holds what the raw text holds).
    result = session.connection().execute(
        _MARK_INBOUND_DONE,
        {"inbound": message.id, "claim": message.claimed_by, "done": status, "now": now,
         "kept": raw, "note": note},
    )
    values: dict[str, object] = {"claimed_by": None, "claimed_at": None, "status": status,
                                 "processed_at": now, "parsed": None}
    if raw is not None:
        values["raw"] = raw
    if note is not None:
        values["last_error"] = note
    return _released(session, message, result, values)


_MARK_INBOUND_DONE = (
    update(_inbound)
    .where(
        _inbound.c.id == bindparam("inbound"),
        _inbound.c.status == INBOUND_PROCESSING,
        _inbound.c.claimed_by == bindparam("claim"),
    )
    .values(
        claimed_by=None,
        claimed_at=None,
        status=bindparam("done"),
        processed_at=bindparam("now"),
        parsed=None,
        raw=func.coalesce(bindparam("kept", type_=LargeBinary), _inbound.c.raw),
        last_error=func.coalesce(bindparam("note", type_=String), _inbound.c.last_error),
    )
)


def mark_inbound_failed(
    session: Session, message: InboundMessage, error: str | BaseException, now: datetime
) -> bool:
    """Record a failed attempt: back to pending, or dead after MAX_INBOUND_ATTEMPTS.
    Returns False if the claim was lost. Call it in a new transaction after rolling back
    the failed one."""
    status = INBOUND_DEAD if message.attempts >= MAX_INBOUND_ATTEMPTS else INBOUND_PENDING
    return _release_inbound(
        session, message, now, status=status, last_error=_error_text(error), processed_at=None
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


# --- crash recovery ----------------------------------------------------------------------


def _claim_is_stale(
    claimed_by: str | None, claimed_at: datetime | None, now: datetime, lease: timedelta
) -> bool:
    if claimed_at is None or claimed_at < now - lease:
        return True
    host, _, rest = (claimed_by or "").partition(":")
    pid_text, _, rest = rest.partition(":")
    if host != _host() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        # Ours, or made by an earlier process that had our pid and is therefore gone (a
        # claim of the form host:pid:thread, from before instances, is such an earlier one).
        return rest.partition(":")[0] != _INSTANCE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    # The pid is in use: by the claimant, or by a process that started after the claim was
    # made (a restarted server's workers may get their predecessors' pids).
    started = _process_start(pid)
    return started is not None and started > claimed_at + _START_SLACK


# /proc gives a process's start in clock ticks after boot, to a hundredth of a second.
_START_SLACK = timedelta(seconds=1)


def _process_start(pid: int) -> datetime | None:
    """When process ``pid`` started (from Linux's /proc), or None when that is unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        # Fields after the command name (which may hold spaces) start at field 3; the
        # start time is field 22.
        ticks = int(stat.rpartition(")")[2].split()[19])
        since_boot = float(Path("/proc/uptime").read_text().split()[0])
        per_second = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    return datetime.fromtimestamp(time.time() - since_boot + ticks / per_second, UTC)


def release_stale_claims(
    session: Session,
    *,
    now: datetime,
    lease: timedelta = DEFAULT_LEASE,
    on_dead: Callable[[Session, InboundMessage], None] | None = None,
) -> tuple[int, int]:
    """Put back the claims of crashed workers; returns (inbound, outbound) released.

    A claim is stale when its process on this host no longer exists, or it is older than
    ``lease`` (a process on another machine that died). ``on_dead`` is called for each
    inbound message dead-lettered here (its attempts used up).
    """
    inbound = 0
    for message in session.scalars(
        select(InboundMessage).where(InboundMessage.status == INBOUND_PROCESSING)
    ):
        if _claim_is_stale(message.claimed_by, message.claimed_at, now, lease):
            message.claimed_by = None
            message.claimed_at = None
            message.last_error = "the worker stopped while processing this message"
            if message.attempts >= MAX_INBOUND_ATTEMPTS:
                message.status = INBOUND_DEAD
                message.processed_at = now
                if on_dead is not None:
                    on_dead(session, message)
            else:
                message.status = INBOUND_PENDING
            inbound += 1
    outbound = 0
    for out in session.scalars(
        select(OutboundMessage).where(OutboundMessage.status == OUTBOUND_SENDING)
    ):
        if _claim_is_stale(out.claimed_by, out.claimed_at, now, lease):
            out.claimed_by = None
            out.claimed_at = None
            out.status = OUTBOUND_PENDING
            out.next_attempt_at = now
            outbound += 1
    session.flush()
    return inbound, outbound


# --- outbound --------------------------------------------------------------------------


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
    message = OutboundMessage(
        **outbound_row(
            recipient, raw, now, inbound_id=inbound_id, message_id=message_id,
            subject=subject, board_number=board_number, status=status, last_error=last_error,
        )
    )
    session.add(message)
    session.flush()
    return message


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
) -> dict[str, Any]:
    """The outbox row of one mail (see :func:`enqueue_outbound`), for :func:`queue_outbound`."""
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
        "next_attempt_at": now,
        "inbound_id": inbound_id,
    }


def queue_outbound(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Store outbox rows (:func:`outbound_row`) with one INSERT, when nobody needs their ids."""
    if rows:
        session.connection().execute(_QUEUE_OUTBOUND, list(rows))


_QUEUE_OUTBOUND = insert(_outbound)


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


def inbound_pending(session: Session) -> bool:
    """Whether any inbound mail waits (a cheap read before :func:`claim_inbound`'s write)."""
    return session.scalar(_ANY_PENDING_INBOUND) is not None


def claim_due_outbound_ids(
    session: Session,
    worker: str,
    now: datetime,
    *,
    limit: int = 10,
    lease: timedelta = DEFAULT_LEASE,
) -> list[int]:
    """Claim up to ``limit`` messages due for sending (oldest first), counting an attempt;
    returns their ids, oldest first. Commit right away, read the mails outside the write
    transaction (:func:`outbound_by_ids`), send, then mark each sent or failed in a new
    transaction.

    One Core statement on the table, the search and the claim together (on PostgreSQL rows
    another sender is claiming are skipped): the sender runs it inside the write lock for
    every batch, and the ORM's select-then-update cost four times as much."""
    postgresql = session.get_bind().dialect.name == "postgresql"
    claimed = session.execute(
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


def outbound_by_ids(session: Session, ids: Sequence[int]) -> list[OutboundMessage]:
    """The outbound mails ``ids``, in that order, as stored now."""
    if not ids:
        return []
    found = {
        m.id: m
        for m in session.scalars(
            select(OutboundMessage)
            .where(OutboundMessage.id.in_(ids))
            .execution_options(populate_existing=True)
        )
    }
    return [found[i] for i in ids if i in found]


def claim_due_outbound(
    session: Session,
    worker: str,
    now: datetime,
    *,
    limit: int = 10,
    lease: timedelta = DEFAULT_LEASE,
) -> list[OutboundMessage]:
    """:func:`claim_due_outbound_ids`, returning the claimed mails themselves (read in the
    same transaction)."""
    ids = claim_due_outbound_ids(session, worker, now, limit=limit, lease=lease)
    return outbound_by_ids(session, ids)


def _release_outbound(session: Session, message: OutboundMessage, **values: object) -> bool:
    result = session.execute(
        update(OutboundMessage)
        .where(
            OutboundMessage.id == message.id,
            OutboundMessage.status == OUTBOUND_SENDING,
            OutboundMessage.claimed_by == message.claimed_by,
        )
        .values(claimed_by=None, claimed_at=None, **values)
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        if inspect(message).session is session:
            session.refresh(message)
        return False
    for key, value in {"claimed_by": None, "claimed_at": None, **values}.items():
        set_committed_value(message, key, value)
    return True


def mark_outbound_sent(session: Session, message: OutboundMessage, now: datetime) -> bool:
    """The relay accepted the message. Returns False if the claim was lost."""
    return _release_outbound(session, message, status=OUTBOUND_SENT, sent_at=now, last_error=None)


def mark_outbound_sent_many(
    session: Session, messages: Sequence[OutboundMessage], now: datetime
) -> set[int]:
    """:func:`mark_outbound_sent` for a batch claimed by one worker, in one UPDATE; returns
    the ids whose claim still held (the others were taken over meanwhile)."""
    if not messages:
        return set()
    worker = messages[0].claimed_by
    assert all(m.claimed_by == worker for m in messages), "one worker's batch"
    values = {"status": OUTBOUND_SENT, "sent_at": now, "last_error": None,
              "claimed_by": None, "claimed_at": None}
    ours = set(
        session.scalars(
            _MARK_OUTBOUND_SENT,
            {"ids": [m.id for m in messages], "worker": worker, "now": now},
        )
    )
    for message in messages:
        if message.id in ours:
            for key, value in values.items():
                set_committed_value(message, key, value)
        elif inspect(message).session is session:
            session.refresh(message)
    return ours


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
    message: OutboundMessage,
    error: str | BaseException,
    now: datetime,
    *,
    permanent: bool = False,
    base_delay: timedelta = DEFAULT_BASE_DELAY,
    max_delay: timedelta = DEFAULT_MAX_DELAY,
) -> bool:
    """Record a failed delivery. ``permanent`` (a 5xx answer): status failed, no retry.
    Otherwise (4xx, connection trouble) pending again after an exponential backoff, or dead
    after MAX_OUTBOUND_ATTEMPTS. Returns False if the claim was lost."""
    if permanent:
        status, next_at = OUTBOUND_FAILED, now
    elif message.attempts >= MAX_OUTBOUND_ATTEMPTS:
        status, next_at = OUTBOUND_DEAD, now
    else:
        status = OUTBOUND_PENDING
        next_at = now + retry_delay(message.attempts, base_delay, max_delay)
    return _release_outbound(
        session, message, status=status, next_attempt_at=next_at, last_error=_error_text(error)
    )


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
        rows = session.connection().execute(_SENT_TO_EACH, {"keys": keys, "since": since})
        counts.update({recipient: int(count) for recipient, count in rows})
    return counts


# Built once, on the table: the worker runs it for every mail it answers.
_SENT_TO_EACH = (
    select(_outbound.c.recipient, func.count())
    .where(_outbound.c.recipient.in_(bindparam("keys", expanding=True)),
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


def next_outbound_due(session: Session) -> datetime | None:
    """When the next pending outbound mail is due (for the sender's sleep)."""
    return session.scalar(
        select(func.min(OutboundMessage.next_attempt_at)).where(
            OutboundMessage.status == OUTBOUND_PENDING
        )
    )


__all__ = [
    "INBOUND_IGNORED",
    "MAX_INBOUND_ATTEMPTS",
    "MAX_OUTBOUND_ATTEMPTS",
    "claim_due_outbound",
    "claim_due_outbound_ids",
    "claim_inbound",
    "claim_inbound_id",
    "inbound_pending",
    "outbound_by_ids",
    "outbound_due",
    "enqueue_inbound",
    "NewInbound",
    "store_inbound",
    "store_inbound_many",
    "enqueue_outbound",
    "outbound_row",
    "queue_outbound",
    "mark_inbound_done",
    "mark_inbound_failed",
    "mark_outbound_failed",
    "mark_outbound_sent",
    "mark_outbound_sent_many",
    "next_outbound_due",
    "release_stale_claims",
    "replies_sent_to",
    "replies_sent_to_each",
    "requeue_inbound",
    "requeue_outbound",
    "retry_delay",
    "worker_name",
]
