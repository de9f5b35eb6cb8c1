"""The lines of a ``multiple`` mail that have run, as the mail worker records them.

Each line of a ``multiple`` mail is read, decided and answered on its own, and stored in
its own short write transaction (no line is rendered inside one); that transaction also
records the line here (:func:`record_lines`), re-checking that the worker still holds the
mail's claim. A worker that takes the mail up again (after a crash, or a failed attempt)
reads the lines recorded (:func:`lines_run`) and goes on after the last of them; the write
transaction that marks the mail done removes them (:func:`forget_lines`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Table, delete, insert, select
from sqlalchemy.orm import Session

from pbm_emergo.db.claims import ClaimedMail
from pbm_emergo.db.inbox import renew_inbound_claim
from pbm_emergo.db.models import InboundLine

__all__ = ["LineRun", "forget_lines", "lines_run", "record_lines"]

_lines = cast(Table, InboundLine.__table__)


@dataclass(frozen=True, slots=True)
class LineRun:
    """One line of a ``multiple`` mail that has run: what the mail's report shows of it,
    and what it used of the mail's budgets."""

    number: int  # from 1, in the mail's order
    line: str  # as it may be shown
    ok: bool
    summary: str
    summary_said: str | None  # the summary in the reader's language, where it has one
    answer: str | None  # the answer or the error, the passwords verified so far masked
    mails_charged: int = 0  # mails to others charged to the sender
    accounts_charged: tuple[tuple[int, int], ...] = ()  # of those, to each account
    password_failures: int = 0  # wrong passwords hashed
    notified: tuple[str, ...] = ()  # userids whose owners were told of a foreign login


def lines_run(session: Session, inbound_id: int) -> list[LineRun]:
    """The lines of the mail ``inbound_id`` recorded so far, in order."""
    rows = session.execute(
        select(_lines).where(_lines.c.inbound_id == inbound_id).order_by(_lines.c.number)
    ).mappings()
    return [
        LineRun(
            number=row["number"], line=row["line"], ok=row["ok"], summary=row["summary"],
            summary_said=row["summary_said"], answer=row["answer"],
            mails_charged=row["mails_charged"],
            accounts_charged=tuple((int(a), int(n)) for a, n in row["accounts_charged"]),
            password_failures=row["password_failures"],
            notified=tuple(row["notified"]),
        )
        for row in rows
    ]


def record_lines(
    session: Session, claimed: ClaimedMail, runs: Sequence[LineRun], now: datetime
) -> bool:
    """Record ``runs`` in a line's write transaction, if the worker still holds the mail's
    claim (renewed: the claim's time is now); False, recording nothing, if it does not (the
    caller rolls back)."""
    if not renew_inbound_claim(session, claimed, now):
        return False
    session.connection().execute(
        _RECORD_LINE,
        [
            {
                "inbound_id": claimed.id, "number": run.number, "line": run.line,
                "ok": run.ok, "summary": run.summary, "summary_said": run.summary_said,
                "answer": run.answer, "mails_charged": run.mails_charged,
                "accounts_charged": [list(pair) for pair in run.accounts_charged],
                "password_failures": run.password_failures, "notified": list(run.notified),
            }
            for run in runs
        ],
    )
    return True


_RECORD_LINE = insert(_lines)  # built once


def forget_lines(session: Session, inbound_id: int) -> None:
    """Remove the lines recorded of the mail ``inbound_id`` (it is done)."""
    session.connection().execute(delete(_lines).where(_lines.c.inbound_id == inbound_id))
