"""The compat32 reply builder gives the mails the modern one gave: read back with the modern
parser, the same headers, text and HTML, for any subject, body, picture and thread; and
every mail it writes keeps to SMTP (CRLF, lines of at most 998 octets)."""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime, make_msgid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm_emergo.app.messages import Reply, clean_address
from pbm_emergo.views.reply_mail import (
    build_reply,
    readdressed_bytes,
    reply_bytes,
    reply_mail,
    sanitise_subject,
    thread_id,
)
from pbm_emergo.views.reply_size import MAX_REPLY_BYTES, cut_to_size, fit_alternative
from pbm_emergo.wire import policies
from pbm_emergo.wire.marks import LOOP_HEADER

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
SERVER = "pbmserv@emergo.test"
HEADERS = ("From", "To", "Subject", "Date", "In-Reply-To", "References", "Auto-Submitted",
           LOOP_HEADER, "MIME-Version", "Content-Type", "Content-Transfer-Encoding")


def modern_reply(
    reply: Reply, *, in_reply_to: str | None = None, references: tuple[str, ...] = ()
) -> bytes:
    """The builder this module had before (commit a865e7a): EmailMessage, set_content,
    add_alternative, written with policy.SMTP (UTF-8 headers for a non-ASCII address)."""
    to = clean_address(reply.to)
    assert to is not None
    domain = SERVER.rpartition("@")[2]
    msg = EmailMessage(policy=policies.write_policy(to))
    msg["From"] = SERVER
    msg["To"] = to
    msg["Subject"] = sanitise_subject(reply.subject)
    msg["Date"] = format_datetime(NOW)
    msg["Message-ID"] = make_msgid(idstring="pbm-emergo", domain=domain)
    root = [thread_id(reply.board, domain)] if reply.board is not None else []
    chain: list[str] = []
    for ref in (*references, in_reply_to):
        if ref and ref not in chain and ref not in root:
            chain.append(ref)
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    if root or chain:
        msg["References"] = " ".join(root + chain[-9:])
    msg["Auto-Submitted"] = "auto-replied"
    msg[LOOP_HEADER] = SERVER
    body = reply.body.replace("\r\n", "\n").replace("\r", "\n")
    if not body.endswith("\n"):
        body += "\n"
    body, html = fit_alternative(cut_to_size(body, MAX_REPLY_BYTES), reply.html)
    msg.set_content(body, charset="utf-8", cte=cte(body))
    if html:
        msg.add_alternative(html, subtype="html", charset="utf-8", cte=cte(html))
    return msg.as_bytes(policy=policies.WRITE_UTF8 if not to.isascii() else policies.WRITE)


def cte(text: str) -> str:
    longest = max(len(line.encode("utf-8")) for line in text.split("\n"))
    if longest > 990:
        return "quoted-printable"
    return "7bit" if text.isascii() else "8bit"


def parse(raw: bytes) -> EmailMessage:
    msg = BytesParser(policy=policies.READ).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return msg


def read_back(raw: bytes) -> dict[str, Any]:
    """What a mail client sees of a reply: headers (the Message-ID is new in each mail), the
    type and encoding of each part, the text and the HTML."""
    msg = parse(raw)
    assert not msg.defects
    parts = list(msg.iter_parts()) if msg.is_multipart() else [msg]
    plain, html = msg.get_body(("plain",)), msg.get_body(("html",))
    return {
        "headers": {name: [str(v) for v in msg.get_all(name, [])] for name in HEADERS
                    if name != "Content-Type" or not msg.is_multipart()},
        "type": msg.get_content_type(),
        "parts": [(p.get_content_type(), p["Content-Transfer-Encoding"], p.get_param("charset"),
                   p.defects) for p in parts],
        "text": plain.get_content() if plain is not None else None,
        "html": html.get_content() if html is not None else None,
    }


def keeps_to_smtp(raw: bytes) -> None:
    assert raw.endswith(b"\r\n")
    lines = raw.split(b"\r\n")
    assert not any(b"\r" in line or b"\n" in line for line in lines)
    assert max(map(len, lines)) <= 998
    head = raw.partition(b"\r\n\r\n")[0].lower()
    assert head.count(b"\r\nto: ") == head.count(b"\r\nmessage-id: ") == 1


# Mostly text as mail carries it; now and then a line longer than SMTP takes, in ASCII or
# not, so that quoted-printable is used.
line = st.one_of(
    st.text(max_size=80),
    st.builds(lambda c, n: c * n, st.characters(codec="utf-8"),
              st.integers(min_value=200, max_value=1100)),
)
texts = st.lists(line, max_size=6).map("\n".join)
message_ids = st.builds(
    lambda local, domain: f"<{local}@{domain}>",
    st.text(st.characters(codec="utf-8", exclude_categories=["Cc", "Zs", "Zl", "Zp"],
                          exclude_characters="<>@"), min_size=1, max_size=40),
    st.sampled_from(["example.org", "mail.gmail.com", "bücher.example"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    to=st.sampled_from(["alice@example.org", "Bob@Example.ORG", "jörg@bücher.example"]),
    subject=st.one_of(st.text(max_size=300), st.sampled_from(
        ["Emergo Board 101 alice", "Re: été " * 30, "x" * 250, "Re: " + "x" * 100 + " y"])),
    body=texts,
    html=st.one_of(st.none(), texts.map(lambda t: f"<p>{t}</p>\n")),
    board=st.one_of(st.none(), st.integers(min_value=0, max_value=10**9)),
    in_reply_to=st.one_of(st.none(), message_ids),
    references=st.lists(message_ids, max_size=12).map(tuple),
)
def test_the_same_mail_as_the_modern_builder(
    to: str, subject: str, body: str, html: str | None, board: int | None,
    in_reply_to: str | None, references: tuple[str, ...],
) -> None:
    reply = Reply(to, subject, body, board=board, html=html)
    ours = reply_bytes(build_reply(reply, server_address=SERVER, now=NOW,
                                   in_reply_to=in_reply_to, references=references))
    keeps_to_smtp(ours)
    modern = modern_reply(reply, in_reply_to=in_reply_to, references=references)
    mine, theirs = read_back(ours), read_back(modern)
    # The texts we put in headers read back exactly as given. (The modern folder did not
    # always manage: it lost the space between two encoded words, "\x80 \x80".)
    root = [f"<board-{board}.pbm-emergo@emergo.test>"] if board is not None else []
    chain = list(dict.fromkeys(r for r in (*references, in_reply_to) if r and r not in root))
    given = {
        "Subject": [sanitise_subject(subject)],
        "In-Reply-To": [in_reply_to] if in_reply_to else [],
        "References": [" ".join(root + chain[-9:])] if root or chain else [],
    }
    for name, values in given.items():
        assert mine["headers"].pop(name) == values, name
        theirs["headers"].pop(name)
    assert mine == theirs
    # Written out directly: the same mail, and the header values it has.
    mail = reply_mail(reply, server_address=SERVER, now=NOW, in_reply_to=in_reply_to,
                      references=references)
    keeps_to_smtp(mail.raw)
    assert read_back(mail.raw) == read_back(ours)
    parsed = parse(mail.raw)
    assert (mail.to, mail.message_id) == (str(parsed["To"]), str(parsed["Message-ID"]))
    assert mail.subject == sanitise_subject(subject)
    # And readdressed to another player.
    second, message_id = readdressed_bytes(mail.raw, "carol@example.org", server_address=SERVER)
    keeps_to_smtp(second)
    assert parse(second)["To"] == "carol@example.org"
    assert parse(second)["Message-ID"] == message_id != mail.message_id


def test_the_message_reads_like_a_parsed_mail() -> None:
    """build_reply's message: its headers as the modern policy reads them, its parts' content,
    and the policy to write to a non-ASCII address with."""
    reply = Reply("Jörg@Bücher.example", "Emergo Board 7 jörg été", "the board é\n", board=7,
                  html="<p>the board é</p>\n")
    msg = build_reply(reply, server_address=SERVER, now=NOW, in_reply_to="<c@e.org>")
    assert msg.policy is policies.WRITE_UTF8
    assert all(part.policy is policies.WRITE_UTF8 for part in msg.walk())
    assert str(msg["To"]) == "jörg@bücher.example"
    assert str(msg["Subject"]) == "Emergo Board 7 jörg été"
    plain, html = msg.get_body(("plain",)), msg.get_body(("html",))
    assert plain is not None and plain.get_content() == "the board é\n"
    assert html is not None and html.get_content() == "<p>the board é</p>\n"
    raw = reply_bytes(msg)
    assert "To: jörg@bücher.example\r\n".encode() in raw  # UTF-8, RFC 6532
    assert b"Subject: =?utf-8?" in raw  # encoded words are fine in a UTF-8 mail too
    ascii_reply = Reply("a@example.org", reply.subject, reply.body)
    assert build_reply(ascii_reply, server_address=SERVER, now=NOW).policy is policies.WRITE


@pytest.mark.parametrize("bad", ["<a@b>\r\nBcc: victim@example.org", "<a\n@b>", "<a@b>\x00"])
def test_a_message_id_with_a_line_break_or_control_character_is_refused(bad: str) -> None:
    reply = Reply("a@example.org", "s", "b")
    for in_reply_to, references in ((bad, ()), (None, ("<ok@e.org>", bad))):
        with pytest.raises(ValueError):
            build_reply(reply, server_address=SERVER, now=NOW, in_reply_to=in_reply_to,
                        references=references)
        with pytest.raises(ValueError):
            reply_mail(reply, server_address=SERVER, now=NOW, in_reply_to=in_reply_to,
                       references=references)


def test_a_body_with_the_boundary_in_it_gets_another_boundary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tokens = iter(["aaaa", "bbbb"])
    monkeypatch.setattr("pbm_emergo.views.reply_mail.secrets.token_hex", lambda n: next(tokens))
    body = "--=_aaaa\nContent-Type: text/html\n\n<p>injected</p>\n--=_aaaa--\n"
    raw = reply_mail(Reply("a@example.org", "s", body, html="<p>x</p>\n"),
                     server_address=SERVER, now=NOW).raw
    msg = parse(raw)
    assert msg.get_boundary() == "=_bbbb"
    assert [p.get_content_type() for p in msg.iter_parts()] == ["text/plain", "text/html"]
    plain = msg.get_body(("plain",))
    assert plain is not None and plain.get_content().replace("\r\n", "\n") == body


def test_from_lines_in_a_body_are_not_mangled() -> None:
    raw = reply_mail(Reply("a@example.org", "s", "From here on\nFrom me\n"),
                     server_address=SERVER, now=NOW).raw
    assert b"\r\n\r\nFrom here on\r\nFrom me\r\n" in raw


def test_a_subject_that_looks_encoded_reads_back_as_before() -> None:
    # Text in the form of an RFC 2047 encoded word is decoded by readers, as it was before.
    reply = Reply("a@example.org", "=?utf-8?q?caf=C3=A9?= x", "b")
    ours = parse(reply_mail(reply, server_address=SERVER, now=NOW).raw)
    assert ours["Subject"] == parse(modern_reply(reply))["Subject"] == "café x"
