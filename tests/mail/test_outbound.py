"""Outbox delivery to a real aiosmtpd relay and to a maildir: retries, backoff, failures."""

from __future__ import annotations

import mailbox
import os
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db import outbox
from pbm_emergo.mail.outbound import (
    Backoff,
    MaildirTransport,
    OutboxSender,
    SMTPTransport,
    transport_for,
)
from tests.support.clock import START, Clock
from tests.support.mail import FlakyReads, Relay, free_port
from tests.support.statements import recorded_statements, write_transactions
from tests.support.utf8_relay import Utf8Relay

from .support import outbound, queue_reply


def sender_for(factory: sessionmaker[Session], port: int, clock: Clock) -> OutboxSender:
    return OutboxSender(
        factory, SMTPTransport("127.0.0.1", port, "s.test"), "s@e.test",
        backoff=Backoff(base=timedelta(seconds=30), cap=timedelta(minutes=10)), clock=clock,
    )


def test_delivery_to_the_relay(session_factory: sessionmaker[Session], relay: Relay) -> None:
    queue_reply(session_factory, "alice@example.org")
    clock = Clock()
    assert sender_for(session_factory, relay.port, clock).run_once() == 1
    [(mail_from, rcpt, msg)] = relay.handler.received
    assert (mail_from, rcpt, msg["Subject"]) == ("s@e.test", ["alice@example.org"], "Emergo help")
    [row] = outbound(session_factory)
    assert (row.status, row.attempts, row.sent_at, row.last_error) == ("sent", 1, START, None)


def test_temporary_failures_back_off_exponentially_then_deliver(
    session_factory: sessionmaker[Session], relay: Relay
) -> None:
    queue_reply(session_factory, "alice@example.org")
    clock = Clock()
    sender = sender_for(session_factory, relay.port, clock)
    relay.handler.response = "451 4.3.0 try later"
    delays = []
    for _ in range(4):
        assert sender.run_once() == 1
        [row] = outbound(session_factory)
        assert row.status == "pending" and "451" in (row.last_error or "")
        delays.append(row.next_attempt_at - clock.now)
        # Not due yet: nothing is attempted.
        assert sender.run_once() == 0
        clock.now = row.next_attempt_at
    assert delays == [timedelta(seconds=30), timedelta(seconds=60), timedelta(seconds=120),
                      timedelta(seconds=240)]
    relay.handler.response = "250 OK"
    assert sender.run_once() == 1
    [row] = outbound(session_factory)
    assert (row.status, row.attempts) == ("sent", 5)
    assert len(relay.handler.received) == 1


def test_permanent_failure_is_recorded_not_retried(
    session_factory: sessionmaker[Session], relay: Relay
) -> None:
    queue_reply(session_factory, "alice@example.org")
    clock = Clock()
    relay.handler.response = "550 5.1.1 no such user"
    sender = sender_for(session_factory, relay.port, clock)
    assert sender.run_once() == 1
    [row] = outbound(session_factory)
    assert row.status == "failed" and (row.last_error or "").startswith("550")
    clock.now += timedelta(days=1)
    assert sender.run_once() == 0



def test_an_address_the_relay_cannot_carry_fails_alone(
    session_factory: sessionmaker[Session],
) -> None:
    # A relay without SMTPUTF8 cannot carry a non-ASCII recipient: that message fails for
    # good, and the rest of its batch is still delivered (not stranded until the lease ends).
    plain = Utf8Relay(smtputf8=False)
    plain.start()
    try:
        with session_factory.begin() as session:
            outbox.enqueue_outbound(session, "\u00e9l\u00e8ve@example.org",
                                    b"Subject: x\r\n\r\nx\r\n", START)
        queue_reply(session_factory, "alice@example.org")
        assert sender_for(session_factory, plain.port, Clock()).run_once() == 2
    finally:
        plain.stop()
    bad, good = outbound(session_factory)
    assert bad.status == "failed" and "SMTPUTF8" in (bad.last_error or "")
    assert good.status == "sent"
    assert [r.rcpt_tos for r in plain.handler.relayed] == [["alice@example.org"]]


def test_relay_down_loses_nothing(session_factory: sessionmaker[Session]) -> None:
    port = free_port()  # nothing listens here yet
    for n in range(3):
        queue_reply(session_factory, f"p{n}@example.org")
    clock = Clock()
    sender = sender_for(session_factory, port, clock)
    assert sender.run_once() == 3
    assert {r.status for r in outbound(session_factory)} == {"pending"}
    assert all("Connection" in (r.last_error or "") for r in outbound(session_factory))
    relay = Relay(port)
    relay.start()
    try:
        clock.now += timedelta(seconds=30)
        assert sender.run_once() == 3
        assert sorted(rcpt[0] for _, rcpt, _ in relay.handler.received) == [
            "p0@example.org", "p1@example.org", "p2@example.org"
        ]
    finally:
        relay.stop()
    assert {r.status for r in outbound(session_factory)} == {"sent"}


def test_maildir_delivery(session_factory: sessionmaker[Session], tmp_path: Path) -> None:
    queue_reply(session_factory, "alice@example.org", "Emergo Board 101 bob")
    target = tmp_path / "out"
    sender = OutboxSender(session_factory, MaildirTransport(target), "s@e.test", clock=Clock())
    assert sender.run_once() == 1
    [message] = list(mailbox.Maildir(target, create=False))
    assert message["Subject"] == "Emergo Board 101 bob"
    assert b"\r\n" not in message.as_bytes()
    assert outbound(session_factory)[0].status == "sent"


def test_a_mail_in_the_maildir_is_on_the_disk_before_it_counts_as_delivered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[Path] = []
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        synced.append(Path(os.readlink(f"/proc/self/fd/{descriptor}")))
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    target = tmp_path / "out"
    MaildirTransport(target).deliver("s@e.test", "r@example.org", b"Subject: x\r\n\r\nx\r\n")
    [delivered] = (target / "new").iterdir()
    # The file's bytes (by mailbox, in tmp/), then its name in new/.
    assert synced == [target / "tmp" / delivered.name, target / "new"]


def test_after_a_whole_batch_the_sender_claims_at_once_else_it_looks_first(
    session_factory: sessionmaker[Session], tmp_path: Path
) -> None:
    """An idle sender looks for due mail without the write lock; right after a claim that
    took a whole batch it claims again at once (there is most likely more), and after one
    that took less it looks first again."""
    for n in range(outbox.OUTBOUND_BATCH + 3):
        queue_reply(session_factory, f"p{n}@example.org")
    sender = OutboxSender(session_factory, MaildirTransport(tmp_path / "mail"), "s@e.test",
                          clock=Clock())
    engine = session_factory.kw["bind"]

    def run() -> tuple[int, bool, int]:
        """Of one run_once: the mails sent, whether it looked first (a read before the
        claim), its write transactions."""
        with recorded_statements(engine) as seen, write_transactions(engine) as begun:
            sent = sender.run_once()
        return sent, seen[0].lstrip().upper().startswith("SELECT"), len(begun)

    assert run() == (outbox.OUTBOUND_BATCH, True, 2)  # a look, the claim, the record
    assert run() == (3, False, 2)  # after a whole batch: the claim at once
    assert run() == (0, True, 0)  # after three: a look, which finds none
    assert [m.status for m in outbound(session_factory)] == ["sent"] * (
        outbox.OUTBOUND_BATCH + 3)
    assert len(list(mailbox.Maildir(tmp_path / "mail"))) == outbox.OUTBOUND_BATCH + 3


def test_transport_for(config: Config) -> None:
    smtp = transport_for("smtp://127.0.0.1:2526", "x.test")
    assert isinstance(smtp, SMTPTransport) and (smtp.host, smtp.port) == ("127.0.0.1", 2526)
    default = transport_for(config.effective_outbound, "x.test")
    assert isinstance(default, MaildirTransport)
    assert default.path == (config.data_dir / "outbox-maildir").resolve()
    with pytest.raises(ValueError):
        transport_for("http://example.org", "x.test")


def test_claimed_replies_whose_read_fails_are_read_next_time_not_left_to_their_lease(
    session_factory: sessionmaker[Session], relay: Relay
) -> None:
    queue_reply(session_factory, "alice@example.org")
    sender = sender_for(session_factory, relay.port, Clock())
    # Read 1 looks for due mail; read 2, of the mail just claimed, fails.
    sender.reads = FlakyReads(sender.reads, fail_at=2)  # type: ignore[assignment]
    with pytest.raises(OperationalError):
        sender.run_once()
    [row] = outbound(session_factory)
    assert (row.status, row.attempts) == ("sending", 1)  # claimed: ours
    assert sender.run_once() == 1
    [row] = outbound(session_factory)
    assert (row.status, row.attempts) == ("sent", 1)  # not claimed a second time
    assert len(relay.handler.received) == 1


def test_a_maildir_missing_its_subfolders_gets_them(tmp_path: Path) -> None:
    """A maildir made by hand with only new/ (or an empty folder): the missing tmp/ and
    cur/ are made, private, and the mail is delivered rather than failing every time."""
    import stat

    for target, present in ((tmp_path / "half", ("new",)), (tmp_path / "empty", ())):
        target.mkdir()
        for sub in present:
            (target / sub).mkdir(mode=0o755)
        MaildirTransport(target).deliver("s@e.test", "r@example.org", b"Subject: x\r\n\r\nx\r\n")
        assert len(list((target / "new").iterdir())) == 1
        for sub in ("cur", "tmp"):
            assert stat.S_IMODE((target / sub).stat().st_mode) == 0o700
