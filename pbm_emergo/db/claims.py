"""Claims on the mail queues: who holds one, for how long, how many attempts a mail gets, and
putting back the claims of workers that are gone.

A claim names its worker (``host:pid:instance:thread``; the instance is a random id made
when the process starts). :func:`release_stale_claims` puts back the claims of workers that
are gone: at once for a process on this host that no longer exists or has ended (a zombie
not yet reaped), or whose pid is now another process's (a server restarted as PID 1 in a
container has its predecessor's pid), after the lease for any other; a mail whose attempts
are used up goes to the dead letters.

The queues themselves, and how each claims its rows, are :mod:`pbm_emergo.db.inbox` and
:mod:`pbm_emergo.db.outbox`; both end a claim with :func:`released`.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Container
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Result, select
from sqlalchemy.orm import Session, object_session
from sqlalchemy.orm.attributes import set_committed_value

from pbm_emergo.db.models import (
    INBOUND_DEAD,
    INBOUND_PENDING,
    INBOUND_PROCESSING,
    OUTBOUND_PENDING,
    OUTBOUND_SENDING,
    InboundMessage,
    OutboundMessage,
)
from pbm_emergo.db.session import rowcount

# Attempts are counted at claim time, so a mail that crashes its worker every time is still
# dead-lettered after this many.
MAX_INBOUND_ATTEMPTS = 5
DEFAULT_LEASE = timedelta(minutes=10)


@dataclass(frozen=True)
class ClaimedMail:
    """A stored mail as its worker read it once claimed: the row's fields a worker uses,
    as a value (its claim, ``claimed_by``, is what every later write re-checks)."""

    id: int
    raw: bytes
    envelope_sender: str
    message_id: str | None
    subject: str | None
    sender: str | None
    not_answered: str | None
    parsed: dict[str, Any] | None
    attempts: int
    claimed_by: str | None


def claimed_mail(message: InboundMessage) -> ClaimedMail:
    """The value of a row read as an object here in ``db``."""
    return ClaimedMail(
        id=message.id, raw=message.raw, envelope_sender=message.envelope_sender,
        message_id=message.message_id, subject=message.subject, sender=message.sender,
        not_answered=message.not_answered, parsed=message.parsed, attempts=message.attempts,
        claimed_by=message.claimed_by,
    )
ERROR_LENGTH = 4000  # last_error keeps the end of longer texts


def error_text(error: str | BaseException) -> str:
    """What a failed attempt keeps in ``last_error``: the end of the error's text."""
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


def _host() -> str:
    return socket.gethostname()[:64]  # so that host, pid and instance always fit


def worker_name() -> str:
    """``host:pid:instance:thread``, the value of ``claimed_by`` for claims made by this
    thread (``instance``: a random id made when this process started)."""
    name = threading.current_thread().name
    return f"{_host()}:{os.getpid()}:{_INSTANCE}:{name}"[:128]


def released(
    session: Session,
    message: object,
    result: Result[Any],
    values: dict[str, object],
) -> bool:
    """After the conditional UPDATE that ends a claim: whether the claim held. A row's
    object (not a value read as one) is kept in step: given ``values`` (the claim held), or
    read back (it did not)."""
    if not isinstance(message, (InboundMessage, OutboundMessage)):
        return rowcount(result) == 1
    if rowcount(result) != 1:
        if object_session(message) is session:
            session.refresh(message)
        return False
    for key, value in values.items():
        set_committed_value(message, key, value)
    return True


def claim_is_stale(
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
    stat = _process_stat(pid)
    if stat is None:
        return False  # unknown (no /proc): the lease decides
    state, started = stat
    # A zombie has ended: a crashed server's worker processes, orphaned, stay zombies until
    # the init reaps them, which a container's may do late or never.
    if state == "Z":
        return True
    # The pid is in use: by the claimant, or by a process that started after the claim was
    # made (a restarted server's workers may get their predecessors' pids).
    return started > claimed_at + _START_SLACK


# /proc gives a process's start in clock ticks after boot, to a hundredth of a second.
_START_SLACK = timedelta(seconds=1)


def _process_stat(pid: int) -> tuple[str, datetime] | None:
    """Process ``pid``'s state (``Z``: a zombie) and when it started, from Linux's /proc;
    None when that is unknown."""
    try:
        # Fields after the command name (which may hold spaces) start at field 3: the
        # state is field 3, the start time field 22.
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        state, ticks = fields[0], int(fields[19])
        since_boot = float(Path("/proc/uptime").read_text().split()[0])
        per_second = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    return state, datetime.fromtimestamp(time.time() - since_boot + ticks / per_second, UTC)


def stale_claims_given_up(
    session: Session, *, now: datetime, lease: timedelta = DEFAULT_LEASE
) -> list[ClaimedMail]:
    """The inbound messages :func:`release_stale_claims` would dead-letter now (a stale
    claim, the attempts used up): read ahead of it, so that what goes with them is made
    before its write transaction."""
    return [
        claimed_mail(message)
        for message in session.scalars(
            select(InboundMessage).where(
                InboundMessage.status == INBOUND_PROCESSING,
                InboundMessage.attempts >= MAX_INBOUND_ATTEMPTS,
            )
        )
        if claim_is_stale(message.claimed_by, message.claimed_at, now, lease)
    ]


# Every claim held on either queue: who holds it, since when (the columns' types are the
# first select's, alike in both tables).
_CLAIMS_HELD = (
    select(InboundMessage.claimed_by, InboundMessage.claimed_at)
    .where(InboundMessage.status == INBOUND_PROCESSING)
    .union_all(
        select(OutboundMessage.claimed_by, OutboundMessage.claimed_at)
        .where(OutboundMessage.status == OUTBOUND_SENDING)
    )
)


def any_stale_claim(
    session: Session, *, now: datetime, lease: timedelta = DEFAULT_LEASE
) -> bool:
    """Whether :func:`release_stale_claims` would release anything now: one read, so that
    a scheduler round with nothing to put back takes no write lock."""
    return any(
        claim_is_stale(claimed_by, claimed_at, now, lease)
        for claimed_by, claimed_at in session.execute(_CLAIMS_HELD)
    )


def release_stale_claims(
    session: Session,
    *,
    now: datetime,
    lease: timedelta = DEFAULT_LEASE,
    on_dead: Callable[[Session, ClaimedMail], None] | None = None,
    given_up: Container[int] | None = None,
) -> tuple[int, int]:
    """Put back the claims of crashed workers; returns (inbound, outbound) released.

    A claim is stale when its process on this host no longer exists, or it is older than
    ``lease`` (a process on another machine that died). ``on_dead`` is called for each
    inbound message dead-lettered here (its attempts used up); with ``given_up``, only the
    messages whose ids it holds are (those :func:`stale_claims_given_up` found, their
    notices made), and another one on its last attempt keeps its claim for a later round.
    """
    inbound = 0
    for message in session.scalars(
        select(InboundMessage).where(InboundMessage.status == INBOUND_PROCESSING)
    ):
        if claim_is_stale(message.claimed_by, message.claimed_at, now, lease):
            if (
                given_up is not None and message.attempts >= MAX_INBOUND_ATTEMPTS
                and message.id not in given_up
            ):
                continue
            message.claimed_by = None
            message.claimed_at = None
            message.last_error = "the worker stopped while processing this message"
            if message.attempts >= MAX_INBOUND_ATTEMPTS:
                message.status = INBOUND_DEAD
                message.processed_at = now
                if on_dead is not None:
                    on_dead(session, claimed_mail(message))
            else:
                message.status = INBOUND_PENDING
            inbound += 1
    outbound = 0
    for out in session.scalars(
        select(OutboundMessage).where(OutboundMessage.status == OUTBOUND_SENDING)
    ):
        if claim_is_stale(out.claimed_by, out.claimed_at, now, lease):
            out.claimed_by = None
            out.claimed_at = None
            out.status = OUTBOUND_PENDING
            out.next_attempt_at = now
            outbound += 1
    session.flush()
    return inbound, outbound


__all__ = [
    "DEFAULT_LEASE",
    "ClaimedMail",
    "ERROR_LENGTH",
    "MAX_INBOUND_ATTEMPTS",
    "any_stale_claim",
    "claim_is_stale",
    "error_text",
    "release_stale_claims",
    "released",
    "stale_claims_given_up",
    "worker_name",
]
