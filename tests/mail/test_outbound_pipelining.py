"""The SMTP transport with a relay that offers PIPELINING (RFC 2920), against a scripted relay
on a real socket that reads a given number of lines before each answer: MAIL, RCPT and DATA
reach it before it answers any of them (a client that waited for each answer would wait
until its timeout), the message's lines that start with a dot are doubled, and after a
refusal every answer still owed is read, so that RSET and the next mail find the connection
in step."""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbm_emergo.mail.outbound import DeliveryError, SMTPTransport, _with_dots_doubled
from tests.support.waits import scaled

MESSAGE = (b"Subject: Emergo\r\n\r\nthe board\r\n.a line that starts with a dot\r\n"
           b"..and two\r\n")
SENT_LINES = [b"Subject: Emergo\r\n", b"\r\n", b"the board\r\n",
              b"..a line that starts with a dot\r\n", b"...and two\r\n"]
EHLO = "250-raw.test\r\n250-PIPELINING\r\n250 8BITMIME"
MAIL_TAKEN = "250 2.1.0 sender ok\r\n250 2.1.5 recipient ok\r\n354 end with <CRLF>.<CRLF>"
DATA = -1  # read the message, to the line with the dot alone

StartRelay = Callable[["ScriptedRelay"], int]


@dataclass
class ScriptedRelay:
    """Greets, then for each step reads so many lines (or a message) and sends the answer;
    ``read`` is every line it got, in order."""

    script: Sequence[tuple[int, str]]
    read: list[bytes] = field(default_factory=list)
    failure: BaseException | None = None

    def serve(self, listener: socket.socket) -> None:
        try:
            connection, _ = listener.accept()
            with connection, connection.makefile("rb") as lines:
                connection.settimeout(scaled(10))
                connection.sendall(b"220 raw.test ESMTP\r\n")
                for count, answer in self.script:
                    if count == DATA:
                        while (line := lines.readline()) not in (b".\r\n", b""):
                            self.read.append(line)
                    else:
                        self.read.extend(lines.readline() for _ in range(count))
                    connection.sendall(answer.encode() + b"\r\n")
        except BaseException as exc:  # reported by the test
            self.failure = exc


@pytest.fixture
def start_relay() -> Iterator[StartRelay]:
    started: list[tuple[socket.socket, threading.Thread]] = []

    def start(relay: ScriptedRelay) -> int:
        listener = socket.create_server(("127.0.0.1", 0))
        thread = threading.Thread(target=relay.serve, args=(listener,), daemon=True)
        thread.start()
        started.append((listener, thread))
        port: int = listener.getsockname()[1]
        return port

    yield start
    for listener, thread in started:
        thread.join(scaled(10))
        listener.close()


def deliver_all(port: int, recipients: Sequence[str]) -> list[str | None]:
    """Deliver MESSAGE to each recipient in turn over one connection, then QUIT: for each,
    None or the failure."""
    transport = SMTPTransport("127.0.0.1", port, "s.test", timeout=scaled(10))
    outcomes: list[str | None] = []
    try:
        for recipient in recipients:
            try:
                transport.deliver("s@e.test", recipient, MESSAGE)
                outcomes.append(None)
            except DeliveryError as exc:
                outcomes.append(f"{'permanent' if exc.permanent else 'temporary'}: {exc}")
    finally:
        transport.close()
    return outcomes


def commands(relay: ScriptedRelay) -> list[bytes]:
    """What the relay read, but the message's lines."""
    return [line for line in relay.read if line not in SENT_LINES]


def test_mail_rcpt_and_data_arrive_before_the_first_answer(start_relay: StartRelay) -> None:
    relay = ScriptedRelay([(1, EHLO), (3, MAIL_TAKEN), (DATA, "250 2.0.0 queued"),
                           (1, "221 2.0.0 bye")])
    assert deliver_all(start_relay(relay), ["alice@example.org"]) == [None]
    assert relay.failure is None
    assert relay.read == [
        b"ehlo s.test\r\n",
        b"MAIL FROM:<s@e.test>\r\n", b"RCPT TO:<alice@example.org>\r\n", b"DATA\r\n",
        *SENT_LINES,
        b"quit\r\n",
    ]


REFUSALS = {
    # MAIL refused: RCPT and DATA are answered 503 (or DATA, wrongly, 354).
    "sender": ("550 5.7.1 not from you\r\n503 5.5.1 MAIL first",
               "permanent: 550 5.7.1 not from you"),
    "recipient": ("250 2.1.0 sender ok\r\n450 4.2.1 mailbox busy",
                  "temporary: 450 4.2.1 mailbox busy"),
}


@pytest.mark.parametrize("refused", list(REFUSALS))
# A relay that takes DATA all the same gets the end of an empty message (RFC 2920 3.1).
@pytest.mark.parametrize("data_taken", [False, True], ids=["DATA-refused", "DATA-taken"])
def test_a_refusal_leaves_the_connection_in_step_for_the_next_mail(
    start_relay: StartRelay, refused: str, data_taken: bool
) -> None:
    answers, outcome = REFUSALS[refused]
    answer_to_data = "354 go on" if data_taken else "554 5.5.1 no valid recipients"
    script = [(1, EHLO), (3, f"{answers}\r\n{answer_to_data}")]
    if data_taken:
        script.append((DATA, "554 5.5.1 no valid recipients"))
    script += [(1, "250 2.0.0 reset"), (3, MAIL_TAKEN), (DATA, "250 2.0.0 queued"),
               (1, "221 2.0.0 bye")]
    relay = ScriptedRelay(script)
    outcomes = deliver_all(start_relay(relay), ["alice@example.org", "bob@example.org"])
    assert outcomes == [outcome, None]
    assert relay.failure is None
    assert commands(relay) == [
        b"ehlo s.test\r\n",
        b"MAIL FROM:<s@e.test>\r\n", b"RCPT TO:<alice@example.org>\r\n", b"DATA\r\n",
        b"rset\r\n",
        b"MAIL FROM:<s@e.test>\r\n", b"RCPT TO:<bob@example.org>\r\n", b"DATA\r\n",
        b"quit\r\n",
    ]


def test_a_refused_message_is_reported_and_the_connection_kept(
    start_relay: StartRelay,
) -> None:
    relay = ScriptedRelay([
        (1, EHLO), (3, MAIL_TAKEN), (DATA, "554 5.6.0 message refused"),
        (1, "250 2.0.0 reset"),
        (3, MAIL_TAKEN), (DATA, "250 2.0.0 queued"), (1, "221 2.0.0 bye"),
    ])
    outcomes = deliver_all(start_relay(relay), ["alice@example.org", "bob@example.org"])
    assert outcomes == ["permanent: 554 5.6.0 message refused", None]
    assert relay.failure is None


@given(st.lists(st.sampled_from([b".", b"..", b"a", b"\r\n", b"\n", b"\r", b" ."])).map(b"".join))
def test_a_message_goes_with_its_dots_doubled_as_smtplib_sends_it(raw: bytes) -> None:
    # smtplib's data(): every dot after a line feed, or first, doubled; a CRLF added unless
    # the message ends with one.
    expected = re.sub(rb"(?m)^\.", b"..", raw)
    if not expected.endswith(b"\r\n"):
        expected += b"\r\n"
    assert _with_dots_doubled(raw) == expected
