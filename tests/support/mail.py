"""Mail in tests: free ports, a recording relay, command mails, sending, waiting."""

from __future__ import annotations

import functools
import os
import random
import smtplib
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from tests.support.waits import scaled

SERVER_ADDRESS = "pbmserv@emergo.test"


# Ports for the servers a test starts (ours, Postfix, Dovecot, relays) come from below the
# kernel's ephemeral range: a port found free there stays free until the server binds it,
# whereas one the kernel handed out for bind(0) may be handed out again, as the local port of
# another test's outgoing connection, in the moment before the server binds it. Each xdist
# worker takes its own share of the range, so two workers never pick the same port; each
# process starts at a random place in its share, so that two test runs on one machine seldom
# walk the same ports at the same time.
PORTS_FROM = 10000
_next_port = random.randrange(1 << 16)


def _ephemeral_start() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as ranges:
            return int(ranges.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


@functools.cache
def _port_share() -> range:
    """This test process's share of the ports below the ephemeral range (empty when the
    range starts too low for one)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1))
    index = int(worker[2:]) % workers if worker.startswith("gw") and worker[2:].isdigit() else 0
    size = max(0, (_ephemeral_start() - PORTS_FROM) // workers)
    start = PORTS_FROM + index * size
    return range(start, start + size)


def free_port() -> int:
    """A loopback port nothing listens on, for a server the test starts; no two calls of a
    test run give the same one while ports are left in this process's share."""
    global _next_port
    share = _port_share()
    if not share:
        return _any_free_port()  # no room below the ephemeral range on this machine
    for _ in range(len(share)):
        port = share[_next_port % len(share)]
        _next_port += 1
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use (another program on this machine)
            return port
    return _any_free_port()


def _any_free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:``port`` (a server started as a
    subprocess listens once its database is migrated)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_for(predicate: Callable[[], Any], timeout: float = 20.0, interval: float = 0.05) -> Any:
    """Poll ``predicate`` until it returns something true; fail after ``timeout`` seconds,
    scaled for this machine (:func:`tests.support.waits.scaled`)."""
    seconds = scaled(timeout)
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {seconds:g} s: {predicate}")
        time.sleep(interval)


@dataclass
class MayOfferPipelining:
    """An aiosmtpd handler that offers PIPELINING (RFC 2920) in its answer to EHLO when
    ``pipelining`` is set, as Postfix does (aiosmtpd does not say so itself, though it reads
    pipelined commands in turn)."""

    pipelining: bool = False

    async def handle_EHLO(  # noqa: N802 - aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope, hostname: str,
        responses: list[str],
    ) -> list[str]:
        session.host_name = hostname
        if self.pipelining:
            return [responses[0], "250-PIPELINING", *responses[1:]]
        return responses


def command_mail(
    subject: str,
    *,
    sender: str = "alice@example.org",
    body: str = "",
    message_id: str | None = None,
    headers: dict[str, str] | None = None,
) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = SERVER_ADDRESS
    msg["Subject"] = subject
    if message_id is not None:
        msg["Message-ID"] = message_id
    msg.set_content(body or "\n")
    # After the content: set_content drops the Content-* headers (Content-Language) set before.
    for name, value in (headers or {}).items():
        msg[name] = value
    return msg


def send(port: int, msg: EmailMessage, envelope_sender: str | None = None) -> None:
    """Submit ``msg`` to the listener on 127.0.0.1:``port`` with smtplib."""
    with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test", timeout=30) as smtp:
        sender = envelope_sender if envelope_sender is not None else str(msg["From"])
        smtp.sendmail(sender, [SERVER_ADDRESS], msg.as_bytes(policy=policy.SMTP))


@dataclass
class RecordingHandler:
    """A relay that records what it is given; ``response`` decides what it answers."""

    received: list[tuple[str, list[str], EmailMessage]] = field(default_factory=list)
    response: str = "250 OK"
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Where each Message-ID was received (a mail relayed twice: twice), read once on
    # receipt: a test that looks its replies up after every command would otherwise parse
    # that header of every mail so far again.
    by_message_id: dict[str, list[int]] = field(default_factory=dict)

    async def handle_DATA(  # noqa: N802 - aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        if not self.response.startswith("250"):
            return self.response
        raw = envelope.original_content or b""
        msg = BytesParser(policy=policy.default).parsebytes(raw)
        assert isinstance(msg, EmailMessage)
        message_id = str(msg["Message-ID"] or "")
        with self.lock:
            self.by_message_id.setdefault(message_id, []).append(len(self.received))
            self.received.append((envelope.mail_from or "", list(envelope.rcpt_tos), msg))
        return "250 OK"

    def messages(self) -> list[EmailMessage]:
        with self.lock:
            return [m for _, _, m in self.received]

    def with_message_ids(self, ids: Iterable[str]) -> list[EmailMessage]:
        """The mails received with these Message-IDs, in the order received (each time it
        was received; those not received left out)."""
        with self.lock:
            at = sorted(n for i in set(ids) for n in self.by_message_id.get(i, ()))
            return [self.received[n][2] for n in at]


class Relay:
    """A real aiosmtpd server on 127.0.0.1, standing in for the outbound relay."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.handler = RecordingHandler()
        self.controller: Controller | None = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.controller = Controller(
            self.handler, hostname="127.0.0.1", port=self.port, server_hostname="relay.test",
            decode_data=False,
        )
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


def make_config(tmp_path: Any, **overrides: Any) -> Any:
    """A configuration in ``tmp_path`` on a free port (SQLite, unless the test says)."""
    from pbm_emergo.config import Config

    values: dict[str, Any] = {
        "data_dir": tmp_path / "data",
        "smtp_port": free_port(),
        "address": SERVER_ADDRESS,
    }
    values.update(overrides)
    return Config(**values)


class FlakyReads:
    """A read-session factory (``read_sessions``) whose ``fail_at``-th session cannot be had,
    as when the database goes away for a moment; the others are real."""

    def __init__(self, reads: Callable[[], Any], fail_at: int) -> None:
        self.reads = reads
        self.fail_at = fail_at
        self.calls = 0

    def __call__(self) -> Any:
        from sqlalchemy.exc import OperationalError

        self.calls += 1
        if self.calls == self.fail_at:
            raise OperationalError("BEGIN", {}, ConnectionError("the database went away"))
        return self.reads()
