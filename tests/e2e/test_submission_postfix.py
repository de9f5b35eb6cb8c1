"""Replies through a real Postfix's submission listener, as through a provider's: STARTTLS
required (a certificate of a CA made in the test), a SASL login checked by a private Dovecot's
auth service (smtpd_sasl_type = dovecot), nothing accepted without the login. Our server
logs in with ``smtp+starttls://USER@127.0.0.1:PORT``, its password file and the test CA's
file; Postfix delivers the replies into the players' Maildirs.

Needs the Debian packages postfix and dovecot-imapd, openssl, and root; .ci/run installs
them. Elsewhere the tests are skipped with the reason, except under CI=true, where they fail.
"""

from __future__ import annotations

import contextlib
import logging
import mailbox
import os
import smtplib
import ssl
from collections.abc import Iterable, Iterator
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import InboundMessage, OutboundMessage
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support import dovecot as dovecot_support
from tests.support.dovecot import Dovecot
from tests.support.mail import command_mail, free_port, send, wait_for
from tests.support.post import ALICE, BOB, Post, challenge, text

from .postfix import PostfixInstance, require_postfix, server_behind

# The submission login: Dovecot's test user, its password in Dovecot's passwd-file.
USER, PASSWORD = dovecot_support.USER, dovecot_support.PASSWORD
WRONG_PASSWORD = "wrong-pw-Hq41v"


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    """A private Dovecot whose auth service answers Postfix's SASL questions on a socket."""
    require_postfix()
    reason = dovecot_support.unavailable_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true: not skipping)")
        pytest.skip(reason)
    server = Dovecot(auth_listener=True)
    server.start()
    yield server
    server.remove()


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger="pbm_emergo")
    return caplog


@contextlib.contextmanager
def replies_through_submission(
    tmp_path: Path, dovecot: Dovecot, password: str
) -> Iterator[tuple[PostfixInstance, MailServer, Path]]:
    """Postfix with a submission listener, and our server sending its replies there with
    ``password`` in its password file: started, then stopped."""
    postfix = PostfixInstance(
        port=free_port(), listener_port=free_port(), server_domain="emergo.test",
        mailbox_domain="example.org", mailboxes=("alice", "bob"),
        submission_port=free_port(),
        tls_files=(dovecot.folder / "server.pem", dovecot.folder / "server.key"),
        sasl_path=dovecot.auth_socket,
    )
    password_file = tmp_path / "submission-password"
    password_file.write_text(password + "\n")
    password_file.chmod(0o600)
    outbound = (f"smtp+starttls://{USER.replace('@', '%40')}@127.0.0.1:"
                f"{postfix.submission_port}")
    with server_behind(
        postfix, tmp_path, outbound=outbound, outbound_password_file=password_file,
        outbound_ca_file=dovecot.ca_file, reply_limit=100_000,
        backoff=Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1)),
    ) as (server, _):
        yield postfix, server, password_file


class Mailboxes:
    """Stands in for Post's recording relay: the mails Postfix delivered into the players'
    Maildirs, read once it has delivered as many as our server handed it."""

    def __init__(self, postfix: PostfixInstance, sessions: sessionmaker[Session]) -> None:
        self.postfix = postfix
        self.sessions = sessions
        self.handler = self

    def delivered(self) -> list[EmailMessage]:
        mails: list[EmailMessage] = []
        for name in self.postfix.mailboxes:
            folder = self.postfix.maildir(name)
            if (folder / "new").is_dir():
                box = mailbox.Maildir(folder, create=False)
                for key in box.iterkeys():
                    msg = BytesParser(policy=policy.default).parsebytes(box.get_bytes(key))
                    assert isinstance(msg, EmailMessage)
                    mails.append(msg)
        return mails

    def messages(self) -> list[EmailMessage]:
        def all_delivered() -> tuple[list[EmailMessage]] | None:
            with self.sessions.begin() as session:
                sent = session.scalar(select(func.count()).select_from(OutboundMessage)
                                      .where(OutboundMessage.status == "sent"))
            mails = self.delivered()
            return (mails,) if len(mails) >= (sent or 0) else None

        [mails] = wait_for(all_delivered, timeout=60, interval=0.1)
        return list(mails)

    def with_message_ids(self, ids: Iterable[str]) -> list[EmailMessage]:
        """As the recording relay's: the mails delivered with these Message-IDs."""
        wanted = set(ids)
        return [m for m in self.messages() if m["Message-ID"] in wanted]


def test_a_game_is_played_with_replies_through_postfix_submission_and_dovecot_sasl(
    tmp_path: Path, dovecot: Dovecot, quick_argon2: None, logs: pytest.LogCaptureFixture,
) -> None:
    with replies_through_submission(tmp_path, dovecot, PASSWORD) as (postfix, server, _):
        mailboxes = Mailboxes(postfix, server.session_factory)
        post = Post(server, mailboxes, server.session_factory)  # type: ignore[arg-type]
        for userid, address in (("alice", ALICE), ("bob", BOB)):
            post.signup(userid, f"{userid}-pw1", address)
        board = challenge(post)
        moved = post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)

        # The listener really requires TLS and a login: a client without either is refused.
        assert postfix.submission_port is not None
        with (smtplib.SMTP("127.0.0.1", postfix.submission_port, timeout=30) as smtp,
              pytest.raises(smtplib.SMTPSenderRefused, match="STARTTLS")):
            smtp.sendmail("x@emergo.test", [ALICE], b"Subject: x\r\n\r\nx\r\n")
        with smtplib.SMTP("127.0.0.1", postfix.submission_port, timeout=30) as smtp:
            smtp.starttls(context=ssl.create_default_context(cafile=str(dovecot.ca_file)))
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                smtp.sendmail("x@emergo.test", [ALICE], b"Subject: x\r\n\r\nx\r\n")
        log = postfix.log_text()
        delivered = mailboxes.delivered()  # before Postfix's folder goes

    assert sorted(str(m["To"]) for m in moved) == [ALICE, BOB]
    assert all(f"{board}" in str(m["Subject"]) for m in moved)
    # Every reply went through Postfix's submission listener after the login.
    assert len(delivered) == len({str(m["Message-ID"]) for m in delivered}) == 8
    for msg in delivered:
        assert str(msg["Delivered-To"]) in (ALICE, BOB)
        received = " ".join(str(r) for r in msg.get_all("Received", []))
        assert "mx.example.org" in received and "ESMTPSA" in received
        assert PASSWORD not in text(msg)
    assert f"sasl_method=PLAIN, sasl_username={USER}" in log
    assert "authentication failed" not in log
    for ours in (logs.text, log, dovecot.log_text()):
        assert PASSWORD not in ours


@pytest.mark.slow
def test_a_wrong_password_keeps_the_replies_pending_until_the_password_file_is_fixed(
    tmp_path: Path, dovecot: Dovecot, quick_argon2: None, logs: pytest.LogCaptureFixture,
) -> None:
    with replies_through_submission(tmp_path, dovecot, WRONG_PASSWORD) as (
        postfix, server, password_file,
    ):
        sessions = server.session_factory
        send(server.config.smtp_port, command_mail(
            "signup alice alice-pw1", sender=ALICE, message_id="<wrong-pw@example.org>"))

        def refused() -> list[tuple[str, str | None, int]]:
            with sessions.begin() as session:
                inbound = session.scalars(select(InboundMessage).where(
                    InboundMessage.message_id == "<wrong-pw@example.org>")).one_or_none()
                if inbound is None or inbound.status != "done":
                    return []
                rows = session.execute(
                    select(OutboundMessage.status, OutboundMessage.last_error,
                           OutboundMessage.attempts)
                    .where(OutboundMessage.inbound_id == inbound.id)
                ).all()
            return [tuple(row) for row in rows if row.last_error]  # type: ignore[misc]

        # Between its attempts the reply is pending; during one, "sending" (the sender has
        # claimed it, and the last attempt's error is still there): wait for the former.
        def waiting(after: int = 0) -> list[tuple[str, str | None, int]]:
            return [r for r in refused() if r[0] == "pending" and r[2] > after]

        [(status, error, attempts)] = wait_for(waiting, timeout=30)
        assert "refused the login" in (error or "")
        wait_for(lambda: "SASL PLAIN authentication failed" in postfix.log_text(), timeout=30)
        assert Mailboxes(postfix, sessions).delivered() == []
        # Retried, not given up: pending again after more attempts (never failed or dead).
        wait_for(lambda: waiting(after=attempts), timeout=30)
        assert all(r[0] in ("pending", "sending") for r in refused())

        # The operator fixes the file: the next attempt logs in, no restart needed.
        password_file.write_text(PASSWORD + "\n")
        [code_mail] = wait_for(Mailboxes(postfix, sessions).delivered, timeout=60)
        log = postfix.log_text()

    assert str(code_mail["To"]) == ALICE
    assert "confirm" in text(code_mail)
    assert f"sasl_username={USER}" in log
    for ours in (logs.text, log, dovecot.log_text()):
        assert WRONG_PASSWORD not in ours
        assert PASSWORD not in ours
