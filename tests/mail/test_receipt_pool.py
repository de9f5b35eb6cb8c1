"""Mail worked out in the receipt processes (as `serve` does on a machine with several
CPUs): stored before the 250 with the same facts as when the listener's own process works
it out; a receipt process that dies costs no mail."""

from __future__ import annotations

import dataclasses
import os
import signal
from collections.abc import Iterator

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db.models import InboundMessage
from pbm_emergo.mail.inbound import InboxHandler, Listener, ReceiptPool

from .support import command_mail, free_port, send, wait_for

FIELDS = ("envelope_sender", "message_id", "subject", "board_number", "sender", "not_answered",
          "parsed")


def serve(config: Config, session_factory: sessionmaker[Session],
          pool: ReceiptPool | None) -> Listener:
    handler = InboxHandler(session_factory, config)
    handler.receipt = pool
    listener = Listener(handler, config)
    listener.start()
    return listener


@pytest.fixture
def pool(config: Config) -> Iterator[ReceiptPool]:
    receipt = ReceiptPool(config, 2)
    yield receipt
    receipt.close()


def facts(session_factory: sessionmaker[Session]) -> list[tuple[object, ...]]:
    with session_factory() as session:
        rows = session.scalars(select(InboundMessage).order_by(InboundMessage.id)).all()
        return [tuple(getattr(r, f) for f in FIELDS) for r in rows]


def mails(tag: str) -> list:  # type: ignore[type-arg]
    return [
        command_mail("emergo move 101 alice s3cret e4#3", message_id=f"<{tag}1@example.org>"),
        command_mail("Re: help", body="a comment\n", message_id=f"<{tag}2@example.org>"),
        command_mail("Out of office", message_id=f"<{tag}3@example.org>",
                     headers={"Auto-Submitted": "auto-replied"}),
    ]


def test_mail_worked_out_in_the_pool_is_stored_as_in_the_listener(
    config: Config, session_factory: sessionmaker[Session], pool: ReceiptPool,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    listener = serve(config, session_factory, pool)
    try:
        for mail in mails("p"):
            send(config.smtp_port, mail)
    finally:
        listener.stop()
    in_pool = facts(session_factory)
    # The same mails through a listener that works them out in its own process.
    other = dataclasses.replace(config, data_dir=tmp_path_factory.mktemp("own"),
                                smtp_port=free_port())
    from pbm_emergo.db.session import get_sessionmaker, upgrade_to_head

    upgrade_to_head(other)
    own_factory = get_sessionmaker(other)
    listener = serve(other, own_factory, None)
    try:
        for mail in mails("p"):
            send(other.smtp_port, mail)
    finally:
        listener.stop()
    assert in_pool == facts(own_factory)
    assert len(in_pool) == 3
    move, comment, auto = in_pool
    assert move[3] == 101 and "s3cret" not in (move[2] or "")  # board, masked subject
    assert comment[6]["body"] == "a comment\n"  # type: ignore[index]
    assert auto[5] is not None  # not answered


def test_a_receipt_process_that_dies_costs_no_mail(
    config: Config, session_factory: sessionmaker[Session], pool: ReceiptPool
) -> None:
    listener = serve(config, session_factory, pool)
    try:
        send(config.smtp_port, command_mail("help", message_id="<k1@example.org>"))
        processes = list(pool._executor._processes)  # type: ignore[attr-defined]
        assert processes
        for pid in processes:
            os.kill(pid, signal.SIGKILL)
        # The mail that finds the pool broken is worked out by the listener itself...
        send(config.smtp_port, command_mail("help", message_id="<k2@example.org>"))
        # ... and the pool is started again for the next ones.
        send(config.smtp_port, command_mail("help", message_id="<k3@example.org>"))
        wait_for(lambda: pool._executor._processes, timeout=30)  # type: ignore[attr-defined]
        assert not set(pool._executor._processes) & set(processes)  # type: ignore[attr-defined]
    finally:
        listener.stop()
    assert [f[1] for f in facts(session_factory)] == [
        "<k1@example.org>", "<k2@example.org>", "<k3@example.org>"
    ]
