"""Replies through a provider's submission server: a login over STARTTLS (required) or
implicit TLS, the certificate verified, the password read from a file.

The server is aiosmtpd on loopback with its real STARTTLS, implicit TLS and AUTH (PLAIN and
LOGIN); the certificates are made for each test session with openssl (a CA of ours, and a
second CA that did not sign the server's certificate)."""

from __future__ import annotations

import dataclasses
import logging
import ssl
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from sqlalchemy import select
from sqlalchemy.orm import Session as DbSession
from sqlalchemy.orm import sessionmaker

from pbm_emergo.config import (
    RELAY_ANSWERS,
    Config,
    OutboundServer,
    load_config,
    outbound_server,
    relay_takes_smtputf8,
)
from pbm_emergo.db.models import OutboundMessage
from pbm_emergo.mail.outbound import (
    Backoff,
    DeliveryError,
    OutboxSender,
    SMTPTransport,
    transport_for,
)
from pbm_emergo.ops.server import MailServer
from tests.support.clock import START, Clock
from tests.support.mail import SERVER_ADDRESS, RecordingHandler, Relay, free_port, make_config
from tests.support.post import ALICE, BOB, Post, challenge

from .support import outbound, queue_reply

USER = "games@emergo.test"
PASSWORD = "app-pw-Zq7x"  # what the server expects
RAW = b"From: s@e.test\r\nTo: x@example.org\r\nSubject: Emergo\r\n\r\nbody\r\n"


# --- certificates ------------------------------------------------------------------------


@dataclass(frozen=True)
class Certs:
    ca: Path  # the CA that signed the server's certificate
    other_ca: Path  # a CA that did not
    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)
        return context


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _make_ca(folder: Path, name: str) -> None:
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2",
             "-subj", f"/CN={name}", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=folder)


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    folder = tmp_path_factory.mktemp("certs")
    _make_ca(folder, "test-ca")
    _make_ca(folder, "other-ca")
    (folder / "server.ext").write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
    )
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1",
             cwd=folder)
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "test-ca.pem", "-CAkey",
             "test-ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "2",
             "-extfile", "server.ext", cwd=folder)
    return Certs(folder / "test-ca.pem", folder / "other-ca.pem", folder / "server.pem",
                 folder / "server.key")


# --- the submission server ---------------------------------------------------------------


@dataclass
class Logins:
    """aiosmtpd's authenticator: accepts USER with PASSWORD, records every attempt."""

    attempts: list[tuple[str, bool]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str,
        auth_data: Any,
    ) -> AuthResult:
        assert isinstance(auth_data, LoginPassword)
        login = auth_data.login.decode()
        ok = login == USER and auth_data.password.decode() == PASSWORD
        with self.lock:
            self.attempts.append((login, ok))
        return AuthResult(success=ok, handled=False)  # aiosmtpd answers 235 or 535


@dataclass
class LoginRequired(RecordingHandler):
    """Records mail, refuses MAIL before a login (as a submission server does)."""

    async def handle_MAIL(  # noqa: N802 - aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope, address: str,
        mail_options: list[str],
    ) -> str:
        if not session.authenticated:
            return "530 5.7.0 Authentication required"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"


class Submission(Relay):
    """A submission server on 127.0.0.1: ``mode`` "starttls" (STARTTLS and a login
    required), "tls" (implicit TLS, a login required) or "plain" (no STARTTLS offered, AUTH
    offered in clear: what a downgrade or a wrong port looks like)."""

    def __init__(self, certs: Certs, mode: str, *, smtputf8: bool = False) -> None:
        super().__init__()
        self.certs = certs
        self.mode = mode
        self.smtputf8 = smtputf8
        self.logins = Logins()
        self.handler = LoginRequired()

    @property
    def url(self) -> str:
        scheme = "smtps" if self.mode == "tls" else "smtp+starttls"
        return f"{scheme}://games%40emergo.test@127.0.0.1:{self.port}"

    def start(self) -> None:
        context = self.certs.server_context()
        modes: dict[str, dict[str, Any]] = {
            "starttls": {"tls_context": context, "require_starttls": True,
                         "auth_required": True, "auth_require_tls": True},
            # aiosmtpd counts only STARTTLS as TLS for AUTH (over implicit TLS all is TLS),
            # and warns of auth_required without it: the handler requires the login.
            "tls": {"ssl_context": context, "auth_require_tls": False},
            "plain": {"auth_require_tls": False},
        }
        security = modes[self.mode]
        self.controller = Controller(
            self.handler, hostname="127.0.0.1", port=self.port, server_hostname="mail.test",
            decode_data=False, authenticator=self.logins, enable_SMTPUTF8=self.smtputf8,
            **security,
        )
        self.controller.start()


@pytest.fixture
def submission(certs: Certs) -> Iterator[Callable[..., Submission]]:
    started: list[Submission] = []

    def start(mode: str, **kwargs: Any) -> Submission:
        server = Submission(certs, mode, **kwargs)
        server.start()
        started.append(server)
        return server

    RELAY_ANSWERS.forget()
    yield start
    for server in started:
        server.stop()
    RELAY_ANSWERS.forget()


@pytest.fixture
def password_file(tmp_path: Path) -> Path:
    path = tmp_path / "outbound-password"
    path.write_text(PASSWORD + "\n")
    path.chmod(0o600)
    return path


def transport(server: Submission, password_file: Path, ca_file: Path | None) -> SMTPTransport:
    made = transport_for(server.url, "pbm.test", password_file=password_file, ca_file=ca_file)
    assert isinstance(made, SMTPTransport)
    return made


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="pbm_emergo")
    return caplog


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


# --- the setting -------------------------------------------------------------------------


def test_the_outbound_url_names_server_security_and_percent_encoded_user() -> None:
    assert outbound_server("smtp+starttls://games%40emergo.test@mail.example.org") == \
        OutboundServer("starttls", "mail.example.org", 587, USER)
    assert outbound_server("smtps://games%40emergo.test@mail.example.org") == \
        OutboundServer("tls", "mail.example.org", 465, USER)
    assert outbound_server("smtp://relay.test:2526") == OutboundServer("plain", "relay.test", 2526)


def test_a_password_in_the_url_is_refused_without_repeating_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="PBM_EMERGO_OUTBOUND_PASSWORD_FILE") as refused:
        Config(outbound="smtp+starttls://games%40emergo.test:s3cret-pw@mail.test:587",
               outbound_password_file=tmp_path / "pw")
    assert "s3cret-pw" not in str(refused.value)


def test_a_login_in_clear_and_a_login_without_password_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="smtp\\+starttls://"):
        Config(outbound="smtp://games%40emergo.test@mail.test:25",
               outbound_password_file=tmp_path / "pw")
    with pytest.raises(ValueError, match="PBM_EMERGO_OUTBOUND_PASSWORD_FILE"):
        Config(outbound="smtps://games%40emergo.test@mail.test")
    with pytest.raises(ValueError, match="PBM_EMERGO_OUTBOUND_PASSWORD_FILE"):
        transport_for("smtps://games%40emergo.test@mail.test", "pbm.test")


def test_the_files_are_read_from_the_environment(tmp_path: Path) -> None:
    config = load_config(environ={
        "PBM_EMERGO_OUTBOUND": "smtps://games%40emergo.test@mail.test",
        "PBM_EMERGO_OUTBOUND_PASSWORD_FILE": str(tmp_path / "pw"),
        "PBM_EMERGO_OUTBOUND_CA_FILE": str(tmp_path / "ca.pem"),
    })
    assert config.outbound_password_file == tmp_path / "pw"
    assert config.outbound_ca_file == tmp_path / "ca.pem"


# --- the transport against a real server -------------------------------------------------


def test_implicit_tls_with_a_login(
    submission: Callable[..., Submission], certs: Certs, password_file: Path
) -> None:
    server = submission("tls")
    smtp = transport(server, password_file, certs.ca)
    try:
        smtp.deliver("s@e.test", "x@example.org", RAW)
        smtp.deliver("s@e.test", "y@example.org", RAW)
    finally:
        smtp.close()
    assert [to for _, to, _ in server.handler.received] == [["x@example.org"], ["y@example.org"]]
    assert server.logins.attempts == [(USER, True)]  # one connection, one login


def test_starttls_with_a_login(
    submission: Callable[..., Submission], certs: Certs, password_file: Path
) -> None:
    server = submission("starttls")
    smtp = transport(server, password_file, certs.ca)
    try:
        smtp.deliver("s@e.test", "x@example.org", RAW)
    finally:
        smtp.close()
    assert len(server.handler.received) == 1
    assert server.logins.attempts == [(USER, True)]


def test_a_server_without_starttls_gets_neither_mail_nor_password(
    submission: Callable[..., Submission], certs: Certs, password_file: Path,
    logs: pytest.LogCaptureFixture,
) -> None:
    server = submission("plain")  # offers AUTH in clear, no STARTTLS
    smtp = transport(server, password_file, certs.ca)
    for _ in range(3):
        with pytest.raises(DeliveryError, match="does not offer STARTTLS") as failed:
            smtp.deliver("s@e.test", "x@example.org", RAW)
        assert not failed.value.permanent  # retried: the operator fixes the setting
    assert server.logins.attempts == []
    assert server.handler.received == []
    assert len(errors(logs)) == 1
    assert "does not offer STARTTLS" in errors(logs)[0]


def test_an_unknown_ca_is_refused_and_the_ca_file_accepted(
    submission: Callable[..., Submission], certs: Certs, password_file: Path,
    logs: pytest.LogCaptureFixture,
) -> None:
    for mode in ("starttls", "tls"):
        server = submission(mode)
        for ca_file in (None, certs.other_ca):  # the system's CAs, another CA
            with pytest.raises(DeliveryError, match="PBM_EMERGO_OUTBOUND_CA_FILE") as failed:
                transport(server, password_file, ca_file).deliver("s@e.test", "x@e.org", RAW)
            assert not failed.value.permanent
            assert "certificate" in str(failed.value)
        assert server.logins.attempts == []  # no password to a server we could not verify
        smtp = transport(server, password_file, certs.ca)
        smtp.deliver("s@e.test", "x@example.org", RAW)
        smtp.close()
        assert len(server.handler.received) == 1
    assert errors(logs)


def test_the_relay_is_asked_about_smtputf8_over_tls(
    submission: Callable[..., Submission], certs: Certs, password_file: Path
) -> None:
    for mode, offers in (("starttls", True), ("tls", True), ("tls", False)):
        RELAY_ANSWERS.forget()
        server = submission(mode, smtputf8=offers)
        config = Config(outbound=server.url, outbound_password_file=password_file,
                        outbound_ca_file=certs.ca)
        assert relay_takes_smtputf8(config) is offers
        assert server.logins.attempts == []  # EHLO tells: no login needed


# --- the outbox sender: a wrong password --------------------------------------------------


def test_a_wrong_password_is_retried_and_logged_once_without_the_password(
    submission: Callable[..., Submission], certs: Certs, tmp_path: Path,
    db_sessions: sessionmaker[DbSession], logs: pytest.LogCaptureFixture,
) -> None:
    server = submission("starttls")
    password_file = tmp_path / "outbound-password"
    password_file.write_text("wrong-pw-Kd93\n")
    clock = Clock(START)
    sender = OutboxSender(
        db_sessions, transport(server, password_file, certs.ca), SERVER_ADDRESS,
        backoff=Backoff(base=timedelta(minutes=1), cap=timedelta(minutes=5)), clock=clock,
    )
    ids = [queue_reply(db_sessions, to) for to in ("x@example.org", "y@example.org")]

    def attempt_both() -> None:
        assert sender.run_once() == 2
        rows = outbound(db_sessions)
        assert [r.status for r in rows] == ["pending", "pending"]
        assert all("refused the login" in (r.last_error or "") for r in rows)
        clock.now += timedelta(minutes=10)

    try:
        attempt_both()
        attempt_both()
        # One failed login for four failed deliveries: the unchanged password is not tried
        # again at once, as a provider counts failed logins against the account.
        assert server.logins.attempts == [(USER, False)]
        sender.transport.login_retry_seconds = 0  # type: ignore[attr-defined]
        attempt_both()
        assert server.logins.attempts == [(USER, False)] * 3  # one attempt per connection
        assert len(errors(logs)) == 1  # once, not for every mail and attempt
        assert "refused the login of 'games@emergo.test'" in errors(logs)[0]
        assert server.handler.received == []

        sender.transport.login_retry_seconds = 60  # type: ignore[attr-defined]
        password_file.write_text(PASSWORD + "\n")  # the operator fixes it: no restart
        assert sender.run_once() == 2
    finally:
        sender.close()
    assert [r.status for r in outbound(db_sessions)] == ["sent", "sent"]
    assert sorted(to[0] for _, to, _ in server.handler.received) == \
        ["x@example.org", "y@example.org"]
    assert [ok for _, ok in server.logins.attempts] == [False] * 3 + [True]
    assert "works again" in logs.text
    for secret in ("wrong-pw-Kd93", PASSWORD):
        assert secret not in logs.text
        with db_sessions.begin() as session:
            for row in session.scalars(select(OutboundMessage).where(
                    OutboundMessage.id.in_(ids))):
                assert secret not in (row.last_error or "")
                assert secret.encode() not in row.raw


# --- a game by mail, its replies through submission ---------------------------------------


@pytest.mark.slow
def test_a_game_is_played_with_replies_through_starttls_and_a_login(
    submission: Callable[..., Submission], certs: Certs, password_file: Path,
    db_config: Config, db_sessions: sessionmaker[DbSession], quick_argon2: None,
    logs: pytest.LogCaptureFixture,
) -> None:
    server = submission("starttls")
    config = dataclasses.replace(
        db_config, address=SERVER_ADDRESS, smtp_port=free_port(), outbound=server.url,
        outbound_password_file=password_file, outbound_ca_file=certs.ca, reply_limit=100_000,
    )
    post = Post(None, server, db_sessions)  # type: ignore[arg-type]
    mail_server = MailServer(
        config, db_sessions, backoff=Backoff(base=timedelta(milliseconds=100),
                                             cap=timedelta(seconds=1)),
        poll_seconds=0.2, scheduler_seconds=0.2, on_scheduled=post.scheduler_ran,
    )
    post.server = mail_server
    mail_server.start()
    try:
        for userid, address in (("alice", ALICE), ("bob", BOB)):
            post.signup(userid, f"{userid}-pw1", address)
        board = challenge(post)
        post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
        post.send(f"emergo move {board} bob bob-pw1 e6", BOB)
        over = post.send(f"emergo resign {board} alice alice-pw1", ALICE)
    finally:
        mail_server.stop()
    assert sorted(str(m["To"]) for m in over) == [ALICE, BOB]
    assert post.board(board).status != "active"
    assert server.logins.attempts and all(
        attempt == (USER, True) for attempt in server.logins.attempts
    )
    assert isinstance(server.handler, RecordingHandler)
    assert PASSWORD not in logs.text


# --- pbm-emergo check -----------------------------------------------------------------------


def test_check_logs_in_once_and_names_the_fix_of_a_wrong_password_or_an_unknown_ca(
    submission: Callable[..., Submission], certs: Certs, password_file: Path, tmp_path: Path,
) -> None:
    from pbm_emergo.ops.check import check_outbound

    server = submission("starttls")
    config = make_config(tmp_path, outbound=server.url, outbound_password_file=password_file,
                         outbound_ca_file=certs.ca)
    found = check_outbound(config)
    assert not found.problem, found
    assert "STARTTLS and the login" in found.detail
    assert server.logins.attempts == [(USER, True)] and not server.handler.received
    wrong = tmp_path / "wrong-password"
    wrong.write_text("not-the-password\n")
    found = check_outbound(dataclasses.replace(config, outbound_password_file=wrong))
    assert found.problem and "refused the login" in found.detail
    assert found.fix is not None and "PBM_EMERGO_OUTBOUND_PASSWORD_FILE" in found.fix
    assert "not-the-password" not in found.detail + found.fix
    found = check_outbound(dataclasses.replace(config, outbound_ca_file=None))
    assert found.problem and "could not be verified" in found.detail
    assert found.fix is not None and "PBM_EMERGO_OUTBOUND_CA_FILE" in found.fix
