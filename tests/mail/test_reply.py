"""Replies: our headers, threading, and no way for user text into a header."""

from __future__ import annotations

from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbm_emergo.app.messages import Reply
from pbm_emergo.mail.parse import parse_mail
from pbm_emergo.views.reply_mail import (
    _compose,
    _written,
    build_reply,
    readdressed_bytes,
    reply_bytes,
    reply_mail,
    rethreaded_bytes,
    sanitise_subject,
)
from pbm_emergo.wire import policies
from pbm_emergo.wire.marks import LOOP_HEADER

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
SERVER = "pbmserv@emergo.test"


def built(reply: Reply, **kwargs: object) -> bytes:
    return reply_bytes(build_reply(reply, server_address=SERVER, now=NOW, **kwargs))  # type: ignore[arg-type]


def text(msg: EmailMessage) -> str:
    content: str = msg.get_content()
    return content.replace("\r\n", "\n")  # the wire form has CRLF line ends


def test_reply_headers() -> None:
    raw = built(
        Reply("Alice@Example.org", "Emergo Board 101 bob", "the board\n", board=101),
        in_reply_to="<cmd@example.org>",
        references=("<older@example.org>",),
    )
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert msg["From"] == SERVER
    assert msg["To"] == "alice@example.org"
    assert msg["Subject"] == "Emergo Board 101 bob"
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg[LOOP_HEADER] == SERVER
    assert msg["Message-ID"].endswith("@emergo.test>")
    assert msg["In-Reply-To"] == "<cmd@example.org>"
    assert msg["References"].split() == [
        "<board-101.pbm-emergo@emergo.test>", "<older@example.org>", "<cmd@example.org>"
    ]
    assert text(msg) == "the board\n"
    assert msg["Content-Transfer-Encoding"] == "7bit"
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")


def test_two_mails_of_one_board_share_the_thread_root() -> None:
    first = built(Reply("a@example.org", "x", "y", board=101), in_reply_to="<1@e.org>")
    second = built(Reply("b@example.org", "x", "y", board=101), in_reply_to="<2@e.org>")
    roots = [
        BytesParser(policy=policy.default).parsebytes(raw)["References"].split()[0]
        for raw in (first, second)
    ]
    assert roots[0] == roots[1] == "<board-101.pbm-emergo@emergo.test>"


def test_subject_injection_is_neutralised() -> None:
    raw = built(Reply("a@example.org", "Emergo error\r\nBcc: victim@example.org\n\nbody", "x"))
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert msg["Bcc"] is None
    assert msg["Subject"] == "Emergo error Bcc: victim@example.org body"
    assert len(sanitise_subject("x" * 1000)) == 200


@pytest.mark.parametrize(
    "to",
    ["a@example.org\r\nBcc: victim@example.org", "a@example.org, b@example.org",
     "Alice <a@example.org>", "", "no-at-sign", "\u00e9l\u202eve@example.org",
     "a\x01b@example.org", "a\x7fb@example.org"],
)
def test_recipient_must_be_one_plain_address(to: str) -> None:
    with pytest.raises(ValueError):
        build_reply(Reply(to, "s", "b"), server_address=SERVER, now=NOW)


def test_our_replies_are_never_answered_by_us() -> None:
    raw = built(Reply("a@example.org", "Emergo help", "text"), in_reply_to="<c@example.org>")
    assert parse_mail(raw, SERVER, own_address=SERVER).not_answered is not None
    # ... nor by another pbm-emergo server.
    other = parse_mail(raw, SERVER, own_address="other@elsewhere.test")
    assert other.not_answered == "Auto-Submitted: auto-replied"


def test_long_lines_and_non_ascii_bodies_survive() -> None:
    body = "é" * 10 + "\n" + "x" * 2000 + "\n"
    msg = BytesParser(policy=policy.default).parsebytes(built(Reply("a@example.org", "s", body)))
    assert msg["Content-Transfer-Encoding"] == "quoted-printable"
    assert text(msg) == body
    short = BytesParser(policy=policy.default).parsebytes(built(Reply("a@example.org", "s", "é\n")))
    assert short["Content-Transfer-Encoding"] == "8bit"
    assert text(short) == "é\n"


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=300),
    st.text(max_size=500),
    st.one_of(st.none(), st.integers(min_value=0, max_value=10**9)),
)
def test_any_subject_body_and_board_give_exactly_our_headers(
    subject: str, body: str, board: int | None
) -> None:
    raw = built(Reply("a@example.org", subject, body, board=board), in_reply_to="<c@e.org>")
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert sorted(msg.keys()) == sorted([
        "From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "References",
        "Auto-Submitted", LOOP_HEADER, "Content-Type", "Content-Transfer-Encoding",
        "MIME-Version",
    ])
    assert msg["To"] == "a@example.org" and msg["From"] == SERVER
    assert not any(c in str(msg["Subject"]) for c in "\r\n")
    assert msg["References"].split()[-1] == "<c@e.org>"
    expected = body.replace("\r\n", "\n").replace("\r", "\n")
    expected = expected if expected.endswith("\n") else expected + "\n"
    if all(len(line) <= 72 for line in expected.splitlines()):
        assert text(msg) == expected
    else:  # wrapped at 72 columns (views/fit.py): every word kept, in order
        assert " ".join(text(msg).split()) == " ".join(expected.split())


@pytest.mark.parametrize("html", [None, "<p>" + "the board " * 400 + "</p>"])
def test_a_readdressed_mail_differs_only_in_to_and_message_id(html: str | None) -> None:
    reply = Reply(
        "alice@example.org", "Emergo Board 101 bob", "the board é\n", board=101, html=html
    )
    msg = build_reply(reply, server_address=SERVER, now=NOW, in_reply_to="<c@e.org>")
    first = reply_bytes(msg)
    second, message_id = readdressed_bytes(first, "Bob@Example.org", server_address=SERVER)
    for_bob = build_reply(
        Reply("bob@example.org", reply.subject, reply.body, board=101, html=html),
        server_address=SERVER, now=NOW, in_reply_to="<c@e.org>",
    )  # fmt: skip
    a, b, c = (BytesParser(policy=policy.default).parsebytes(x) for x in (first, second,
                                                                         reply_bytes(for_bob)))
    assert a["To"] == "alice@example.org" and b["To"] == "bob@example.org"
    assert a["Message-ID"] != b["Message-ID"] == message_id
    assert len(a.keys()) == len(b.keys())
    for name in ("From", "Subject", "Date", "In-Reply-To", "References", "Auto-Submitted"):
        assert a[name] == b[name] == c[name]
    plain = [m.get_body(("plain",)) for m in (a, b, c)]
    assert [p.get_content().replace("\r\n", "\n") for p in plain if p] == ["the board é\n"] * 3
    if html is not None:
        for m in (a, b, c):
            part = m.get_body(("html",))
            assert part is not None and part.get_content().strip() == html
    # Only the top-level To and Message-ID change: the rest is the same bytes.
    assert first.partition(b"\r\n\r\n")[2] == second.partition(b"\r\n\r\n")[2]
    with pytest.raises(ValueError):
        readdressed_bytes(first, "eve@example.org\r\nBcc: x@y.org", server_address=SERVER)


def _without_ids(raw: bytes) -> bytes:
    """``raw`` with its Message-ID and multipart boundary (random in each build) blanked."""
    head = BytesParser(policy=policy.default).parsebytes(raw)
    out = raw.replace(head["Message-ID"].encode(), b"<ID>")
    boundary = head.get_boundary()
    return out.replace(boundary.encode(), b"BOUNDARY") if boundary else out


THREADS = [
    (None, ()),
    ("<cmd@example.org>", ()),
    ("<cmd@example.org>", ("<older@example.org>",) + tuple(f"<r{i}@x.example>" for i in range(12))),
]


@pytest.mark.parametrize("to", ["bob@example.org", "jörg@bücher.example"])
@pytest.mark.parametrize("html", [None, "<p>" + "the board " * 40 + "</p>"])
@pytest.mark.parametrize("first", THREADS)
@pytest.mark.parametrize("then", THREADS)
def test_a_rethreaded_mail_is_the_mail_built_for_its_recipient(
    to: str, html: str | None, first: tuple[str | None, tuple[str, ...]],
    then: tuple[str | None, tuple[str, ...]],
) -> None:
    subject = "Emergo Board 101 bob " + "long " * 12
    reply = Reply("alice@example.org", subject, "the board é\n", board=101, html=html)
    mail = reply_mail(reply, server_address=SERVER, now=NOW, in_reply_to=first[0],
                      references=first[1])
    raw, message_id = rethreaded_bytes(
        mail.raw, to, server_address=SERVER, subject=mail.subject, board=101,
        in_reply_to=then[0], references=then[1],
    )
    fresh = reply_mail(
        Reply(to, subject, reply.body, board=101, html=html),
        server_address=SERVER, now=NOW, in_reply_to=then[0], references=then[1],
    )
    assert message_id in raw.decode("utf-8", "surrogateescape")
    assert _without_ids(raw) == _without_ids(fresh.raw)


def test_a_rethreaded_mail_takes_no_unsafe_message_id() -> None:
    mail = reply_mail(Reply("a@example.org", "x", "y", board=101), server_address=SERVER, now=NOW)
    with pytest.raises(ValueError):
        rethreaded_bytes(mail.raw, "b@example.org", server_address=SERVER, subject="x",
                         board=101, in_reply_to="<a@b>\r\nBcc: x@y.org")


@settings(max_examples=300)
@given(
    body=st.text(alphabet=st.sampled_from(list("ab é\r\n")), max_size=200),
    html=st.one_of(st.none(), st.text(alphabet=st.sampled_from(list("<p>x \r\n")), max_size=90)),
)
def test_a_reply_is_written_as_the_library_writes_it(body: str, html: str | None) -> None:
    reply = Reply("alice@example.org", "Emergo Board 101 bob", body, board=101, html=html)
    msg, _ = _compose(reply, SERVER, NOW, "<c@e.org>", ())
    assert _written(msg) == msg.as_bytes(policy=policies.WRITE_COMPAT32)
