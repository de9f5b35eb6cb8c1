"""Mail made to be slow to parse, through the listener.

A header field of encoded words hundreds of kB long, or MIME nested hundreds deep, would
hold the listener's one store thread for seconds while the email package parses it: such a
mail is refused at DATA, before anything parses it, and the next mail is taken as ever.
"""

from __future__ import annotations

import smtplib
from collections.abc import Callable

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import InboundMessage
from pbm_emergo.mail.limits import MAX_HEADER_FIELD, MAX_MIME_DEPTH
from tests.support.mail import SERVER_ADDRESS
from tests.support.post import ALICE, BOB, Post, wait_for_replies

EVE = "eve@evil.example"


def encoded(name: str, size: int, tail: str = "") -> bytes:
    """A header field of about ``size`` bytes unfolded: encoded words, folded as a mail
    program folds them, then ``tail``."""
    word = "=?utf-8?q?" + "=C3=A9" * 10 + "?="
    words = [word] * max(1, (size - 40) // (len(word) + 1))
    return (f"{name}: " + "\r\n ".join(words) + f"{tail}\r\n").encode("ascii")


def encoded_from(size: int) -> bytes:
    """A From field of about ``size`` bytes of encoded words, then eve's address."""
    return encoded("From", size, f" <{EVE}>")


def nested(depth: int) -> bytes:
    """Headers and body of a mail whose text part is at MIME depth ``depth``."""
    opened = "".join(
        f'Content-Type: multipart/mixed; boundary="b{k}"\r\n\r\n--b{k}\r\n'
        for k in range(depth - 1)
    )
    closed = "".join(f"--b{k}--\r\n" for k in reversed(range(depth - 1)))
    return (f"MIME-Version: 1.0\r\n{opened}Content-Type: text/plain\r\n\r\nhelp\r\n"
            f"{closed}").encode("ascii")


def mail(n: int, head: bytes, rest: bytes | None = None, subject: bytes | None = None) -> bytes:
    """A mail with the header lines ``head`` and ``rest`` (its MIME structure), or a plain
    text body."""
    top = (subject or b"Subject: help\r\n") + (
        f"To: {SERVER_ADDRESS}\r\nMessage-ID: <limit{n}@evil.example>\r\n").encode("ascii")
    return top + head + (rest if rest is not None else b"\r\nhelp\r\n")


def answer(post: Post, raw: bytes, sender: str = EVE) -> tuple[int, bytes]:
    """The listener's answer to ``raw`` at DATA."""
    with smtplib.SMTP("127.0.0.1", post.server.config.smtp_port,
                      local_hostname="client.test", timeout=120) as smtp:  # fmt: skip
        try:
            smtp.sendmail(sender, [SERVER_ADDRESS], raw)
        except smtplib.SMTPDataError as refused:
            error = refused.smtp_error
            return refused.smtp_code, error if isinstance(error, bytes) else error.encode()
        return 250, b""


def stored_ids(sessions: sessionmaker[Session]) -> list[str]:
    with sessions() as session:
        return list(session.scalars(select(InboundMessage.message_id)))


OVER = {
    "240 kB From of encoded words": lambda: mail(1, encoded_from(240_000)),
    "240 kB Subject of encoded words": lambda: mail(
        2, f"From: {EVE}\r\n".encode(), subject=encoded("Subject", 240_000)
    ),
    "MIME nested 900 deep": lambda: mail(3, f"From: {EVE}\r\n".encode(), nested(900)),
}


@pytest.mark.parametrize("variant", list(OVER))
def test_a_mail_slow_to_parse_is_refused_and_the_next_mail_is_taken(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session], variant: str
) -> None:
    post = make_post()
    code, text = answer(post, OVER[variant]())
    assert code == 554, text
    assert text.startswith(b"5.6.0 This mail cannot be read here"), text
    # Nothing of it was stored; a normal mail right after, on another connection, is
    # stored and answered as ever.
    assert not any("evil.example" in i for i in stored_ids(db_sessions))
    started = post.send("emergo challenge alice bob", ALICE)
    assert sorted(str(m["To"]) for m in started) == [ALICE, BOB]


def test_a_mail_just_within_the_bounds_is_taken(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post()
    within = [
        mail(11, encoded_from(MAX_HEADER_FIELD - 200)),
        mail(12, f"From: {EVE}\r\n".encode(), nested(MAX_MIME_DEPTH)),
    ]
    for n, raw in enumerate(within, start=11):
        assert answer(post, raw)[0] == 250
        # Answered at eve's address: the help text.
        assert wait_for_replies(post.sessions, f"<limit{n}@evil.example>",
                                ("sent", "failed", "held")) == 1
    assert len(post.received_by(EVE)) == 2
