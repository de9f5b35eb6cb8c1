"""The inbound and outbound mail queues on both databases."""

from __future__ import annotations

import dataclasses
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import claims, inbox, outbox
from pbm_emergo.db.models import InboundBoard, InboundMessage, OutboundMessage

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
RAW = b"From: a@example.org\r\nSubject: help\r\n\r\nbody\xff\r\n"


def _enqueue(session: Session, n: int, sender: str = "a@example.org") -> list[int]:
    ids = []
    for i in range(n):
        message, created = inbox.enqueue_inbound(
            session, RAW, sender, ["pbmserv@localhost"], f"<{i}@example.org>", NOW
        )
        assert created
        ids.append(message.id)
    return ids


def test_inbound_stored_exactly_and_deduplicated(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        first, created = inbox.enqueue_inbound(
            session, RAW, "a@example.org", ["pbmserv@localhost"], "<x@example.org>", NOW
        )
        assert created
        again, created = inbox.enqueue_inbound(
            session, b"other", "a@example.org", ["pbmserv@localhost"], "<x@example.org>", NOW
        )
        assert not created and again.id == first.id
        other_sender, created = inbox.enqueue_inbound(
            session, RAW, "b@example.org", ["pbmserv@localhost"], "<x@example.org>", NOW
        )
        assert created and other_sender.id != first.id
        bounce, created = inbox.enqueue_inbound(
            session, RAW, "", ["pbmserv@localhost"], None, NOW, status="ignored"
        )
        assert created
    with db_sessions() as session:
        stored = session.get(InboundMessage, first.id)
        assert stored is not None
        assert stored.raw == RAW and stored.envelope_recipients == ["pbmserv@localhost"]
        assert stored.status == "pending" and stored.received_at == NOW
        assert session.get(InboundMessage, bounce.id).status == "ignored"  # type: ignore[union-attr]


def test_many_mails_stored_at_once_keep_their_order_boards_and_duplicates(
    db_sessions: sessionmaker[Session],
) -> None:
    """The listener's group: one call stores several mails; each gets its own id back in
    order, whatever order the database returns the rows in. A copy of a mail stored before,
    or earlier in the same call, gets that mail's id and False; mails without a Message-ID
    never count as copies; each new mail's boards are stored with it."""

    def mail(n: int, sender: str = "a@example.org", boards: tuple[int, ...] = ()) -> Any:
        return inbox.NewInbound(
            RAW + str(n).encode(), sender, ["pbmserv@localhost"], f"<{n}@example.org>", NOW,
            boards=boards, subject=f"mail {n}",
        )

    with db_sessions.begin() as session:
        [(before, created)] = inbox.store_inbound_many(session, [mail(1)])
        assert created
    group = [
        mail(2, boards=(101,)),
        mail(1, boards=(105,)),  # stored before
        mail(3, boards=(102, 103)),
        mail(2, boards=(104,)),  # earlier in this group
        mail(2, sender="b@example.org"),  # another sender: not a copy
        inbox.NewInbound(RAW, "", ["pbmserv@localhost"], None, NOW),
        inbox.NewInbound(RAW, "", ["pbmserv@localhost"], None, NOW),
    ]
    with db_sessions.begin() as session:
        results = inbox.store_inbound_many(session, group)
    ids = [stored for stored, _ in results]
    assert [created for _, created in results] == [True, False, True, False, True, True, True]
    assert ids[1] == before and ids[3] == ids[0]
    assert len(set(ids)) == 6
    with db_sessions() as session:
        rows = {row.id: row for row in session.scalars(select(InboundMessage))}
        assert len(rows) == 6
        for (stored, created), sent in zip(results, group, strict=True):
            if created:
                row = rows[stored]
                assert (row.raw, row.envelope_sender, row.message_id) == (
                    sent.raw, sent.envelope_sender, sent.message_id
                )
                assert row.subject == sent.subject
                assert row.board_number == (sent.boards[0] if sent.boards else None)
        boards = session.execute(
            select(InboundBoard.inbound_id, InboundBoard.board_number)
        ).all()
        assert sorted(boards) == sorted(
            [(ids[0], 101), (ids[2], 102), (ids[2], 103)]
        )


def test_inbound_claim_in_order_done_and_empty(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        ids = _enqueue(session, 3)
    claimed = []
    for _ in range(3):
        with db_sessions.begin() as session:
            message = inbox.claim_inbound(session, worker="w1", now=NOW)
            assert message is not None
            assert message.status == "processing" and message.claimed_by == "w1"
            assert message.attempts == 1
            claimed.append(message)
    assert [m.id for m in claimed] == ids
    with db_sessions.begin() as session:
        assert inbox.claim_inbound(session, worker="w1", now=NOW) is None
        session.add(claimed[0])
        assert inbox.mark_inbound_done(session, claimed[0], NOW)
    with db_sessions() as session:
        done = session.get(InboundMessage, ids[0])
        assert done is not None and done.status == "done" and done.processed_at == NOW
        assert done.claimed_by is None


def test_inbound_dead_letter_after_five_failures_and_requeue(
    db_sessions: sessionmaker[Session],
) -> None:
    with db_sessions.begin() as session:
        (message_id,) = _enqueue(session, 1)
    for attempt in range(1, 6):
        with db_sessions.begin() as session:
            message = inbox.claim_inbound(session, worker="w1", now=NOW)
            assert message is not None and message.attempts == attempt
        with db_sessions.begin() as session:
            session.add(message)
            assert inbox.mark_inbound_failed(session, message, ValueError("boom"), NOW)
            expected = "dead" if attempt == 5 else "pending"
            assert message.status == expected
            assert message.last_error == "ValueError: boom"
    with db_sessions.begin() as session:
        assert inbox.claim_inbound(session, worker="w1", now=NOW) is None
        assert inbox.requeue_inbound(session, message_id, NOW)
        assert not inbox.requeue_inbound(session, 999_999, NOW)
    with db_sessions.begin() as session:
        message = inbox.claim_inbound(session, worker="w2", now=NOW)
        assert message is not None and message.id == message_id and message.attempts == 1



def test_a_processed_mail_is_never_requeued(db_sessions: sessionmaker[Session]) -> None:
    # Running a processed mail again would repeat its commands (a move played twice):
    # requeue is for dead letters.
    with db_sessions.begin() as session:
        (message_id,) = _enqueue(session, 1)
    with db_sessions.begin() as session:
        message = inbox.claim_inbound(session, worker="w1", now=NOW)
        assert message is not None
        assert inbox.mark_inbound_done(session, message, NOW)
    with db_sessions.begin() as session:
        assert not inbox.requeue_inbound(session, message_id, NOW)
    with db_sessions.begin() as session:
        again = session.get(InboundMessage, message_id)
        assert again is not None and again.status == "done"

def test_inbound_expired_claim_is_taken_again(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        _enqueue(session, 1)
    with db_sessions.begin() as session:
        lost = inbox.claim_inbound(session, worker="crashed", now=NOW)
        assert lost is not None
    # One stale-claim policy: the claim is put back once its lease has run out.
    with db_sessions.begin() as session:
        assert claims.release_stale_claims(session, now=NOW + timedelta(minutes=5)) == (0, 0)
        assert inbox.claim_inbound(session, worker="w2", now=NOW + timedelta(minutes=5)) is None
    with db_sessions.begin() as session:
        assert claims.release_stale_claims(session, now=NOW + timedelta(minutes=11)) == (1, 0)
        again = inbox.claim_inbound(session, worker="w2", now=NOW + timedelta(minutes=11))
        assert again is not None and again.id == lost.id and again.attempts == 2
    with db_sessions.begin() as session:
        # The crashed worker's late "done" must not count: the claim is w2's now.
        session.add(lost)
        assert not inbox.mark_inbound_done(session, lost, NOW)
    with db_sessions.begin() as session:
        session.add(again)
        assert inbox.mark_inbound_done(session, again, NOW)
        assert again.status == "done"


def test_concurrent_workers_claim_each_message_once(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        ids = _enqueue(session, 40)
    claims: dict[str, list[int]] = {}
    errors: list[BaseException] = []
    barrier = threading.Barrier(4, timeout=30)

    def work(name: str) -> None:
        mine = claims.setdefault(name, [])
        try:
            barrier.wait()
            while True:
                with db_sessions.begin() as session:
                    message = inbox.claim_inbound(session, worker=name, now=NOW)
                    if message is None:
                        return
                    mine.append(message.id)
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    everything = sorted(i for ids_ in claims.values() for i in ids_)
    assert everything == ids


def outbound_rows(session: Session) -> dict[int, tuple[str, datetime]]:
    """Every outbox row's status and due time, by id."""
    return {
        row.id: (row.status, row.next_attempt_at)
        for row in session.execute(
            select(OutboundMessage.id, OutboundMessage.status, OutboundMessage.next_attempt_at)
        )
    }


def test_each_queued_mail_keeps_its_own_bytes(db_sessions: sessionmaker[Session]) -> None:
    # Rows with distinct Message-IDs (the worker's replies), without one, and with one twice:
    # each mail's bytes are stored with that mail, however its id was paired with its row.
    batches = [
        [("a", "<3@x>"), ("b", "<1@x>"), ("c", "<2@x>")],
        [("d", None), ("e", None)],
        [("f", "<same@x>"), ("g", "<same@x>"), ("h", "<0@x>")],
    ]
    with db_sessions.begin() as session:
        for batch in batches:
            outbox.queue_outbound(session, [
                outbox.outbound_row(f"{name}@example.org", f"mail {name}".encode(), NOW,
                                    message_id=message_id)
                for name, message_id in batch
            ])  # fmt: skip
    with db_sessions() as session:
        stored = session.execute(select(OutboundMessage.recipient, OutboundMessage.raw)).all()
    assert sorted((recipient, bytes(raw)) for recipient, raw in stored) == [
        (f"{name}@example.org", f"mail {name}".encode()) for name in "abcdefgh"
    ]


def test_replies_sent_to_each_counts_each_recipient_since(
    db_sessions: sessionmaker[Session],
) -> None:
    # The per-address hourly cap's count for the recipients of a mail's replies, however
    # many there are (one statement for each number of recipients).
    queued = [("a", NOW), ("A", NOW), ("b", NOW), ("c", NOW - timedelta(hours=2)), ("d", NOW)]
    with db_sessions.begin() as session:
        outbox.queue_outbound(session, [
            outbox.outbound_row(f"{name}@example.org", b"mail", at, message_id=f"<{i}@x>")
            for i, (name, at) in enumerate(queued)
        ])  # fmt: skip
    since = NOW - timedelta(hours=1)
    with db_sessions() as session:
        assert outbox.replies_sent_to_each(session, [], since) == {}
        assert outbox.replies_sent_to_each(session, ["A@example.org"], since) == {
            "a@example.org": 2
        }
        assert outbox.replies_sent_to_each(
            session, ["b@example.org", " a@example.org", "e@example.org"], since
        ) == {"a@example.org": 2, "b@example.org": 1, "e@example.org": 0}
        four = ["c@example.org", "B@example.org", "a@example.org", "d@example.org", "A@x.org"]
        assert outbox.replies_sent_to_each(session, four, since) == {
            "a@example.org": 2, "a@x.org": 0, "b@example.org": 1, "c@example.org": 0,
            "d@example.org": 1,
        }
        assert outbox.replies_sent_to_each(session, ["c@example.org"], NOW - timedelta(
            hours=3)) == {"c@example.org": 1}


def test_outbound_backoff_permanent_failure_and_sent(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        inbound, _ = inbox.enqueue_inbound(session, RAW, "a@example.org", ["x"], "<1@x>", NOW)
        reply = outbox.enqueue_outbound(
            session, "a@example.org", b"reply", NOW, inbound_id=inbound.id, subject="Help"
        )
        refused = outbox.enqueue_outbound(session, "nobody@example.org", b"reply", NOW)
    with db_sessions.begin() as session:
        claimed = outbox.claim_due_outbound(session, "s1", NOW)
        assert sorted(m.id for m in claimed) == sorted([reply.id, refused.id])
        assert all(m.claimed_by == "s1" and m.attempts == 1 for m in claimed)
        assert set(outbound_rows(session).values()) == {("sending", NOW)}
    by_id = {m.id: m for m in claimed}
    with db_sessions.begin() as session:
        failed = outbox.mark_outbound_failed(session, by_id[reply.id], "421 try later", NOW)
        assert failed == "pending"
        gave_up = outbox.mark_outbound_failed(
            session, by_id[refused.id], "550 no such user", NOW, permanent=True
        )
        assert gave_up == "failed"
        assert outbound_rows(session) == {
            reply.id: ("pending", NOW + timedelta(seconds=30)), refused.id: ("failed", NOW)
        }
    with db_sessions.begin() as session:
        assert outbox.claim_due_outbound(session, "s1", NOW + timedelta(seconds=29)) == []
        (again,) = outbox.claim_due_outbound(session, "s1", NOW + timedelta(seconds=30))
        assert again.id == reply.id and again.attempts == 2
        assert outbox.mark_outbound_sent(session, again, NOW + timedelta(seconds=31))
    with db_sessions() as session:
        sent = session.get(OutboundMessage, reply.id)
        assert sent is not None and sent.status == "sent" and sent.last_error is None
        assert sent.sent_at == NOW + timedelta(seconds=31)
        assert sent.inbound is not None and sent.inbound.id == inbound.id
        assert outbox.replies_sent_to(session, "A@example.org", NOW) == 1
    with db_sessions.begin() as session:
        assert outbox.requeue_outbound(session, refused.id, NOW)
        assert [m.id for m in outbox.claim_due_outbound(session, "s1", NOW)] == [refused.id]


def test_outbound_claims_take_the_oldest_due_up_to_the_limit_and_stale_claims(
    db_sessions: sessionmaker[Session],
) -> None:
    """A claim takes due mails oldest first (by due time, then id), at most ``limit``;
    not mails due later, nor ones another sender holds, unless that claim is older than
    the lease. Marking a batch sent releases only the rows this sender still holds."""
    due = [NOW - timedelta(minutes=m) for m in (1, 5, 3, 5, 0)]
    with db_sessions.begin() as session:
        rows = [outbox.enqueue_outbound(session, f"p{i}@example.org", b"r", when)
                for i, when in enumerate(due)]
        later = outbox.enqueue_outbound(session, "later@example.org", b"r", NOW)
        later.next_attempt_at = NOW + timedelta(seconds=1)
    ids = [r.id for r in rows]
    oldest_first = [ids[1], ids[3], ids[2], ids[0], ids[4]]
    with db_sessions.begin() as session:
        first = outbox.claim_due_outbound_ids(session, "s1", NOW, limit=3)
    assert first == oldest_first[:3]
    with db_sessions.begin() as session:
        second = outbox.claim_due_outbound(session, "s2", NOW, limit=10)
    assert [m.id for m in second] == oldest_first[3:]
    assert all(m.claimed_by == "s2" and m.attempts == 1 for m in second)
    with db_sessions.begin() as session:
        assert outbox.claim_due_outbound_ids(session, "s3", NOW) == []
        # s1's claim outlives the lease: another sender takes its mails over, oldest first.
        stale = NOW + claims.DEFAULT_LEASE + timedelta(seconds=1)
        taken = outbox.claim_due_outbound_ids(session, "s3", stale, limit=2)
    assert taken == oldest_first[:2]
    with db_sessions() as session:
        s1_batch = outbox.outbound_by_ids(session, first)
    assert [m.claimed_by for m in s1_batch] == ["s3", "s3", "s1"]
    with db_sessions.begin() as session:
        as_s1_knows_it = [dataclasses.replace(m, claimed_by="s1") for m in s1_batch]
        held = outbox.mark_outbound_sent_many(session, as_s1_knows_it, NOW)
    assert held == {first[2]}
    with db_sessions() as session:
        status = {m.id: (m.status, m.claimed_by) for m in session.scalars(select(OutboundMessage))}
    assert status[first[2]] == ("sent", None)
    assert status[first[0]] == status[first[1]] == ("sending", "s3")
    assert status[later.id] == ("pending", None)


def test_concurrent_outbound_claims_never_share_a_mail(
    db_sessions: sessionmaker[Session],
) -> None:
    with db_sessions.begin() as session:
        for i in range(60):
            outbox.enqueue_outbound(session, f"p{i}@example.org", b"r", NOW)
    claimed: dict[str, list[int]] = {}
    start = threading.Barrier(4)

    def sender(name: str) -> None:
        mine: list[int] = []
        start.wait()
        while True:
            with db_sessions.begin() as session:
                batch = outbox.claim_due_outbound_ids(session, name, NOW, limit=4)
            if not batch:
                break
            mine.extend(batch)
        claimed[name] = mine

    threads = [threading.Thread(target=sender, args=(f"s{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    every = [i for mine in claimed.values() for i in mine]
    assert len(claimed) == 4 and len(every) == 60 == len(set(every))


def test_retry_delay_doubles_up_to_the_cap() -> None:
    delays = [outbox.retry_delay(n) for n in range(1, 10)]
    assert delays[:4] == [timedelta(seconds=s) for s in (30, 60, 120, 240)]
    assert delays[-1] == timedelta(hours=1)


def test_outbound_dead_after_max_attempts(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        message = outbox.enqueue_outbound(session, "a@example.org", b"x", NOW)
        message.attempts = outbox.MAX_OUTBOUND_ATTEMPTS - 1
    with db_sessions.begin() as session:
        (claimed,) = outbox.claim_due_outbound(session, "s1", NOW)
        assert outbox.mark_outbound_failed(session, claimed, "connection refused", NOW) == "dead"
    with db_sessions() as session:
        statuses = session.scalars(select(OutboundMessage.status)).all()
        assert statuses == ["dead"]


def test_same_message_stored_once_when_delivered_twice_at_once(
    db_sessions: sessionmaker[Session],
) -> None:
    """Two SMTP sessions deliver the same mail at the same moment: one row, both told it is
    stored (the second gets the first's row)."""
    barrier = threading.Barrier(2, timeout=30)
    results: list[tuple[int, bool]] = []
    errors: list[BaseException] = []

    def deliver() -> None:
        try:
            barrier.wait()
            with db_sessions.begin() as session:
                message, created = inbox.enqueue_inbound(
                    session, RAW, "a@example.org", ["p@x"], "<twice@example.org>", NOW
                )
                results.append((message.id, created))
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=deliver) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert sorted(created for _, created in results) == [False, True]
    assert len({message_id for message_id, _ in results}) == 1
    with db_sessions() as session:
        assert len(session.scalars(select(InboundMessage)).all()) == 1


def test_reply_cap_count_uses_the_recipient_index(tmp_path: Path) -> None:
    # The count runs for every reply: on a years-long outbox it must be an index lookup, not a
    # scan of every row (lower(recipient) would hide the column from its index).
    from pbm_emergo.db.session import create_engine_for, upgrade_to_head

    url = f"sqlite:///{tmp_path / 'plan.sqlite3'}"
    upgrade_to_head(url=url)
    engine = create_engine_for(url)
    statements: list[tuple[str, Any]] = []

    @event.listens_for(engine, "before_cursor_execute")
    def record(conn: Any, cursor: Any, statement: str, parameters: Any, *rest: Any) -> None:
        if "count" in statement and "outbound_messages" in statement:
            statements.append((statement, parameters))

    with Session(engine) as session:
        assert outbox.replies_sent_to(session, "A@example.org", NOW) == 0
    [(statement, parameters)] = statements
    with engine.connect() as connection:
        plan = " ".join(
            str(row[-1])
            for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
        )
    engine.dispose()
    # SEARCH: a lookup by key (SCAN would read the whole index).
    assert plan.startswith("SEARCH outbound_messages USING COVERING INDEX "
                           "ix_outbound_messages_recipient_created_at"), plan
