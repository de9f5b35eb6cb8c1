"""Amplification through the real listener: a short mail must not get a long reply. One
reply is at most 64 kB (repeated answers said once, long reports cut with a line saying
so); the replies to one address per hour stay capped as before (tests/mail/test_worker.py).
"""

from __future__ import annotations

import dataclasses
import random
import string
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support.mail import SERVER_ADDRESS, Relay, command_mail, free_port, send, wait_for
from tests.support.signup import confirmation_code

FAST = Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1))
LIMIT = 64 * 1024
HEADERS = 2048  # room for the reply's headers and MIME lines


@pytest.fixture
def relay() -> Iterator[Relay]:
    server = Relay()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def server(db_config: Config, db_sessions: sessionmaker[Session], relay: Relay) -> Iterator[int]:
    config = dataclasses.replace(
        db_config, address=SERVER_ADDRESS, smtp_port=free_port(), outbound=relay.url
    )
    mail_server = MailServer(config, db_sessions, backoff=FAST, poll_seconds=0.2)
    mail_server.start()
    yield config.smtp_port
    mail_server.stop()


def reply_to(relay: Relay, message_id: str) -> EmailMessage:
    def found() -> EmailMessage | None:
        return next(
            (m for m in relay.handler.messages() if m["In-Reply-To"] == message_id), None
        )

    reply: EmailMessage = wait_for(found, timeout=60)
    return reply


def text_of(reply: EmailMessage) -> str:
    part = reply.get_body(preferencelist=("plain",))
    assert part is not None
    content: str = part.get_content()
    return content


def test_thirty_help_lines_get_the_help_once(server: int, relay: Relay) -> None:
    body = "emergo help\r\n" * 30  # a few hundred bytes asked for 237 kB before
    send(server, command_mail("multiple", body=body, message_id="<help30@example.org>"))
    reply = reply_to(relay, "<help30@example.org>")
    assert len(reply.as_bytes()) <= LIMIT + HEADERS
    text = text_of(reply)
    assert text.count("How to play Emergo") == 1
    assert text.count("(The same answer as for line 1 above.)") == 29
    assert text.count("> emergo help") == 30  # every line's result is still listed


def test_a_quarter_megabyte_of_unknown_lines_gets_a_short_reply(
    server: int, relay: Relay
) -> None:
    rng = random.Random(9)
    lines = []
    while sum(len(line) + 2 for line in lines) < 232_000:
        word = "".join(rng.choices(string.ascii_lowercase, k=6))
        lines.append(word + " a" * 12)  # each short word echoed as a mask before
    send(server, command_mail("multiple", body="\r\n".join(lines),
                              message_id="<junk@example.org>"))
    reply = reply_to(relay, "<junk@example.org>")
    assert len(reply.as_bytes()) <= 16 * 1024  # was 999 kB
    text = text_of(reply)
    assert text.count("There is no command") == 30
    assert f"... and {len(lines) - 30 - 10} more lines, not shown." in text


def test_long_answers_are_cut_with_a_line_saying_so(server: int, relay: Relay) -> None:
    for userid, password in (("alice", "secret-a"), ("bob", "secret-b")):
        sender = f"{userid}@example.org"
        send(server, command_mail(f"signup {userid} {password}", sender=sender,
                                  message_id=f"<s-{userid}@example.org>"))
        code = confirmation_code(text_of(reply_to(relay, f"<s-{userid}@example.org>")))
        send(server, command_mail(f"confirm {code}", sender=sender,
                                  message_id=f"<c-{userid}@example.org>"))
        reply_to(relay, f"<c-{userid}@example.org>")
    send(server, command_mail("emergo challenge alice bob", message_id="<c@example.org>"))
    reply_to(relay, "<c@example.org>")
    # Twenty different answers, each of up to twenty boards: about 300 kB of text.
    body = "\n".join("emergo show" + " 101" * k for k in range(1, 21))
    send(server, command_mail("multiple", body=body, message_id="<shows@example.org>"))
    reply = reply_to(relay, "<shows@example.org>")
    assert len(reply.as_bytes()) <= LIMIT + HEADERS
    text = text_of(reply)
    assert text.count("> emergo show 101") == 20
    assert "this reply reached its size limit" in text or "This reply was cut here" in text
    # One command whose answer (its text and the HTML pictures) was a quarter megabyte.
    send(server, command_mail("emergo show" + " 101" * 20, message_id="<show20@example.org>"))
    reply = reply_to(relay, "<show20@example.org>")
    assert len(reply.as_bytes()) <= LIMIT + HEADERS
    assert reply.get_body(preferencelist=("html",)) is None
    assert "The HTML version of this mail" in text_of(reply)
