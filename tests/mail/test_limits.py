"""The bounds checked on a mail's raw bytes before it is parsed (mail/limits.py)."""

from __future__ import annotations

import pytest

from pbm_emergo.mail.limits import (
    MAX_HEADER_BLOCK,
    MAX_HEADER_FIELD,
    MAX_MIME_DEPTH,
    MAX_MIME_PARTS,
    over_limit,
)
from pbm_emergo.mail.parse import parse_mail

TOP = b"From: a@example.org\r\nSubject: help\r\n"


def folded(name: str, size: int) -> bytes:
    """A field of exactly ``size`` bytes unfolded, folded into lines of 70."""
    first = f"{name}: "
    lines, tail = divmod(size - len(first), 70)
    return ("\r\n".join([first + "x" * tail] + [" " + "x" * 69] * lines) + "\r\n").encode()


def nested(depth: int) -> bytes:
    """A mail whose text part is at MIME depth ``depth``."""
    opened = b"".join(
        b"Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n--b%d\r\n" % (k, k)
        for k in range(depth - 1)
    )
    closed = b"".join(b"--b%d--\r\n" % k for k in reversed(range(depth - 1)))
    return TOP + opened + b"Content-Type: text/plain\r\n\r\nhelp\r\n" + closed


def parts(count: int) -> bytes:
    """A mail of ``count`` MIME entities: a multipart and its text parts."""
    body = b"".join(b"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(count - 1))
    return TOP + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n" + body + b"--b--\r\n"


def forwarded(depth: int) -> bytes:
    """A mail forwarded as message/rfc822 inside itself until depth ``depth``."""
    head = b"".join(b"Content-Type: message/rfc822\r\n\r\n" for _ in range(depth - 1))
    return TOP + head + b"Subject: inner\r\n\r\nhelp\r\n"


@pytest.mark.parametrize(
    ("within", "over"),
    [
        (TOP + folded("X-Long", MAX_HEADER_FIELD) + b"\r\nhi\r\n",
         TOP + folded("X-Long", MAX_HEADER_FIELD + 1) + b"\r\nhi\r\n"),
        (TOP + folded("Subject", MAX_HEADER_FIELD) + b"\r\nhi\r\n",
         TOP + folded("Subject", MAX_HEADER_FIELD + 1) + b"\r\nhi\r\n"),
        (TOP + b"".join(folded(f"X-{k}", 8000) for k in range(7)) + b"\r\nhi\r\n",
         TOP + b"".join(folded(f"X-{k}", 8000) for k in range(9)) + b"\r\nhi\r\n"),
        (nested(MAX_MIME_DEPTH), nested(MAX_MIME_DEPTH + 1)),
        (forwarded(MAX_MIME_DEPTH), forwarded(MAX_MIME_DEPTH + 1)),
        (parts(MAX_MIME_PARTS), parts(MAX_MIME_PARTS + 1)),
    ],
    ids=["field", "subject", "block", "depth", "message-depth", "parts"],
)
def test_a_mail_within_a_bound_is_read_and_one_past_it_is_not(within: bytes, over: bytes) -> None:
    assert over_limit(within) is None
    assert over_limit(over) is not None
    assert parse_mail(within, "a@example.org").over_limit is None
    refused = parse_mail(over, "a@example.org")
    assert refused.over_limit is not None
    assert refused.not_answered == f"not read: {refused.over_limit}"
    assert MAX_HEADER_BLOCK < 9 * 8000  # the "block" case passes the block bound


def test_an_outer_boundary_ends_the_inner_parts() -> None:
    # A part left open inside: the outer boundary closes it; its parts count once each.
    inner = b"Content-Type: multipart/mixed; boundary=in\r\n\r\n--in\r\n\r\nx\r\n"
    raw = TOP + b"Content-Type: multipart/mixed; boundary=out\r\n\r\n" + (
        b"--out\r\n" + inner) * (MAX_MIME_PARTS // 3) + b"--out--\r\n"
    assert over_limit(raw) is None
