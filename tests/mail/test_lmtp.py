"""The listener speaking LMTP (``listen_protocol = "lmtp"``, ``serve --lmtp``) on 127.0.0.1,
driven by smtplib.LMTP as an MTA would: LHLO instead of EHLO, and after DATA one reply for
each recipient accepted at RCPT; the same checks and the same durable inbox as SMTP."""

from __future__ import annotations

import dataclasses
import smtplib
from collections.abc import Iterator
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config, load_config
from pbm_emergo.db.models import InboundMessage
from pbm_emergo.db.session import get_sessionmaker
from pbm_emergo.mail.inbound import InboxHandler, Listener
from tests.support.lmtp import lmtp_deliver
from tests.support.mail import SERVER_ADDRESS, command_mail, make_config, send

POSTMASTER = "postmaster@emergo.test"


@pytest.fixture
def lmtp_config(config: Config) -> Config:
    return dataclasses.replace(config, listen_protocol="lmtp")


@pytest.fixture
def lmtp_listener(
    lmtp_config: Config, session_factory: sessionmaker[Session]
) -> Iterator[Listener]:
    server = Listener(InboxHandler(session_factory, lmtp_config), lmtp_config)
    server.start()
    yield server
    server.stop()


def stored(session_factory: sessionmaker[Session]) -> list[InboundMessage]:
    with session_factory.begin() as session:
        return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))


def test_the_protocol_is_smtp_unless_set_and_only_smtp_or_lmtp() -> None:
    assert Config().listen_protocol == "smtp"
    assert load_config(environ={}).listen_protocol == "smtp"
    environ = {"PBM_EMERGO_LISTEN_PROTOCOL": "lmtp"}
    assert load_config(environ=environ).listen_protocol == "lmtp"
    with pytest.raises(ValueError, match="listen_protocol must be one of smtp, lmtp"):
        load_config(environ={"PBM_EMERGO_LISTEN_PROTOCOL": "esmtp"})


def test_lmtp_greets_with_lhlo_and_refuses_helo_and_ehlo(
    lmtp_config: Config, lmtp_listener: Listener
) -> None:
    with smtplib.SMTP("127.0.0.1", lmtp_config.smtp_port, timeout=30) as client:
        assert client.ehlo("mx.test")[0] == 500
        assert client.helo("mx.test")[0] == 500
        code, answer = client.docmd("LHLO", "mx.test")
        assert code == 250
        assert b"SIZE 262144" in answer  # the same size limit as SMTP
        # Once greeted, mail is taken.
        assert client.mail("alice@example.org")[0] == 250


def test_the_default_listener_still_speaks_smtp_and_not_lmtp(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    server = Listener(InboxHandler(session_factory, config), config)
    server.start()
    try:
        with smtplib.SMTP("127.0.0.1", config.smtp_port, timeout=30) as client:
            assert client.docmd("LHLO", "mx.test")[0] == 500
            assert client.ehlo("mx.test")[0] == 250
        send(config.smtp_port, command_mail("help", message_id="<smtp@example.org>"))
        with smtplib.LMTP("127.0.0.1", config.smtp_port, timeout=30) as lmtp:
            assert lmtp.ehlo("mx.test")[0] == 500
            assert lmtp.helo("mx.test")[0] == 250
    finally:
        server.stop()
    assert [row.message_id for row in stored(session_factory)] == ["<smtp@example.org>"]


def test_one_reply_for_each_accepted_recipient_after_data(
    lmtp_config: Config, lmtp_listener: Listener, session_factory: sessionmaker[Session]
) -> None:
    msg = command_mail("help", message_id="<two-recipients@example.org>")
    accepted, replies = lmtp_deliver(
        lmtp_config.smtp_port, msg, [SERVER_ADDRESS, "someone@emergo.test", POSTMASTER]
    )
    # The stranger is refused at RCPT (550), so the mail has two recipients and two replies,
    # both for the one stored row.
    assert accepted == [SERVER_ADDRESS, POSTMASTER]
    [row] = stored(session_factory)
    assert replies == [(250, f"2.0.0 OK queued as {row.id}".encode())] * 2
    assert row.envelope_recipients == [SERVER_ADDRESS, POSTMASTER]
    assert row.raw == msg.as_bytes(policy=policy.SMTP)
    # Delivered again (an MTA retrying after a lost answer): stored once, both told so.
    _, again = lmtp_deliver(lmtp_config.smtp_port, msg, [SERVER_ADDRESS, POSTMASTER])
    assert again == [(250, b"2.0.0 OK (duplicate, already received)")] * 2
    assert len(stored(session_factory)) == 1


def test_a_single_recipient_gets_a_single_reply(
    lmtp_config: Config, lmtp_listener: Listener, session_factory: sessionmaker[Session]
) -> None:
    accepted, replies = lmtp_deliver(lmtp_config.smtp_port, command_mail("help"))
    assert accepted == [SERVER_ADDRESS]
    [row] = stored(session_factory)
    assert replies == [(250, f"2.0.0 OK queued as {row.id}".encode())]


def test_data_without_an_accepted_recipient_gets_one_503(
    lmtp_config: Config, lmtp_listener: Listener, session_factory: sessionmaker[Session]
) -> None:
    with smtplib.LMTP("127.0.0.1", lmtp_config.smtp_port, timeout=30) as lmtp:
        lmtp.ehlo("mx.test")
        lmtp.mail("alice@example.org")
        assert lmtp.rcpt("someone@emergo.test")[0] == 550
        assert lmtp.docmd("DATA")[0] == 503
        assert lmtp.noop()[0] == 250
    assert stored(session_factory) == []


def test_mail_over_the_size_limit_gets_552_for_each_recipient(
    lmtp_config: Config, lmtp_listener: Listener, session_factory: sessionmaker[Session]
) -> None:
    big = command_mail("help", body=("y" * 70 + "\n") * 4000)
    assert len(big.as_bytes()) > lmtp_config.max_message_size
    # smtplib's mail() announces no SIZE: the refusal comes after the content.
    _, replies = lmtp_deliver(lmtp_config.smtp_port, big, [SERVER_ADDRESS, POSTMASTER])
    assert [code for code, _ in replies] == [552, 552]
    assert stored(session_factory) == []


def test_a_storage_failure_gives_451_for_each_recipient(tmp_path: Path) -> None:
    # A real database that was never migrated: storing fails with a real error.
    config = make_config(tmp_path, listen_protocol="lmtp")
    config.data_dir.mkdir(parents=True)
    server = Listener(InboxHandler(get_sessionmaker(config), config), config)
    server.start()
    try:
        _, replies = lmtp_deliver(
            config.smtp_port, command_mail("help"), [SERVER_ADDRESS, POSTMASTER]
        )
    finally:
        server.stop()
    assert replies == [(451, b"4.3.0 Could not store the message, try again later")] * 2
