"""The parser: decoded subjects, bodies, senders, loop safety; never raises."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbm_emergo.app.messages import clean_subject
from pbm_emergo.mail.parse import html_to_text, parse_mail
from pbm_emergo.wire.marks import LOOP_HEADER

OWN = "pbmserv@emergo.test"


def mail(headers: str, body: str = "hello\n") -> bytes:
    return (headers.strip("\n") + "\n\n" + body).replace("\n", "\r\n").encode("utf-8")


def test_plain_command_mail() -> None:
    parsed = parse_mail(
        mail("From: Alice <Alice@Example.ORG>\nSubject: Re: AW: Fwd:  emergo   help\n"
             "Message-ID: <abc@example.org>"),
        "alice@example.org",
        own_address=OWN,
    )
    assert parsed.sender == "alice@example.org"
    assert parsed.subject == "emergo help"
    assert parsed.body == "hello\n"
    assert parsed.message_id == "<abc@example.org>"
    assert parsed.not_answered is None
    command = parsed.command_mail()
    assert (command.sender, command.subject, command.message_id) == (
        "alice@example.org", "emergo help", "<abc@example.org>"
    )


def test_encoded_subject_is_decoded() -> None:
    parsed = parse_mail(mail("From: a@example.org\nSubject: =?utf-8?q?emergo_help_=C3=A9?="))
    assert parsed.subject == "emergo help é"


def test_missing_message_id_is_generated_from_the_content() -> None:
    raw = mail("From: a@example.org\nSubject: help")
    first = parse_mail(raw)
    assert first.message_id.startswith("<") and first.message_id.endswith(">")
    assert parse_mail(raw).message_id == first.message_id
    assert parse_mail(raw + b"x").message_id != first.message_id


def test_envelope_sender_is_the_fallback_address() -> None:
    parsed = parse_mail(mail("Subject: help"), "Bob@Example.org")
    assert parsed.sender == "bob@example.org"
    assert parsed.not_answered is None
    garbage_from = parse_mail(mail("From: not an address\nSubject: help"), "bob@example.org")
    assert garbage_from.sender == "bob@example.org"


def test_no_address_at_all_is_not_answered() -> None:
    parsed = parse_mail(mail("Subject: help"), None)
    assert parsed.sender is None
    assert parsed.not_answered == "no address to answer"


def test_first_text_plain_part_is_the_body() -> None:
    raw = mail(
        "From: a@example.org\nSubject: help\nMIME-Version: 1.0\n"
        'Content-Type: multipart/mixed; boundary="b"',
        "--b\nContent-Type: text/plain; charset=latin-1\nContent-Transfer-Encoding: "
        "quoted-printable\n\ncaf=E9\n--b\nContent-Type: text/plain\n\nsecond\n--b--\n",
    )
    assert parse_mail(raw).body == "café"  # the line end before a boundary belongs to it


def test_html_only_mail_is_converted_to_text() -> None:
    raw = mail(
        "From: a@example.org\nSubject: help\nContent-Type: text/html; charset=utf-8",
        "<html><head><style>p {}</style></head><body><p>e4&amp;c6</p><br>next<script>x"
        "</script></body></html>\n",
    )
    assert parse_mail(raw).body == "e4&c6\n\nnext\n"
    assert html_to_text("<div>a</div><div>b</div>") == "a\n\nb\n"


def test_attachment_text_is_not_the_body() -> None:
    raw = mail(
        "From: a@example.org\nSubject: help\nContent-Type: multipart/mixed; boundary=b",
        "--b\nContent-Type: text/plain\nContent-Disposition: attachment; filename=x.txt\n\n"
        "attached\n--b\nContent-Type: text/html\n\n<p>real</p>\n--b--\n",
    )
    assert parse_mail(raw).body == "real\n"


def test_unknown_charset_does_not_stop_the_parser() -> None:
    raw = mail(
        "From: a@example.org\nSubject: help\nContent-Type: text/plain; charset=x-no-such",
        "body text\n",
    )
    parsed = parse_mail(raw)
    assert parsed.body == "body text\n"
    assert parsed.not_answered is None


def test_subject_prefixes() -> None:
    assert clean_subject("RE: re: Fwd: help") == "help"
    assert clean_subject("Fw[3]: SV: help\r\n  emergo") == "help emergo"
    assert clean_subject("return") == "return"


def test_never_answered() -> None:
    cases = {
        "null sender": (mail("From: a@example.org\nSubject: help"), ""),
        "mail from MAILER-DAEMON": (
            mail("From: MAILER-DAEMON@example.org\nSubject: Undelivered"), "x@example.org"),
        "Auto-Submitted: auto-replied": (
            mail("From: a@example.org\nSubject: help\nAuto-Submitted: auto-replied"), None),
        "Precedence: bulk": (mail("From: a@example.org\nSubject: help\nPrecedence: Bulk"), None),
        "Precedence: list": (mail("From: a@example.org\nSubject: help\nPrecedence: list"), None),
        f"our own loop header {LOOP_HEADER}": (
            mail(f"From: a@example.org\nSubject: help\n{LOOP_HEADER}: {OWN}"), None),
        "mail from our own address": (mail(f"From: {OWN}\nSubject: help"), None),
    }
    for reason, (raw, envelope) in cases.items():
        assert parse_mail(raw, envelope, own_address=OWN).not_answered == reason
    answered = mail("From: a@example.org\nSubject: help\nAuto-Submitted: no\nPrecedence: first")
    assert parse_mail(answered, "a@example.org", own_address=OWN).not_answered is None


def test_defects_are_recorded_not_fatal() -> None:
    raw = mail(
        "From: a@example.org\nSubject: help\nContent-Type: multipart/mixed",  # no boundary
        "text\n",
    )
    parsed = parse_mail(raw)
    assert parsed.defects
    assert parsed.not_answered is None


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=4000), st.one_of(st.none(), st.text(max_size=40)))
def test_random_bytes_never_raise(raw: bytes, envelope: str | None) -> None:
    parsed = parse_mail(raw, envelope, own_address=OWN)
    assert isinstance(parsed.subject, str) and isinstance(parsed.body, str)
    assert parsed.message_id.startswith("<")
    assert parsed.sender is None or "@" in parsed.sender


_header_names = st.sampled_from(
    ["From", "Subject", "Message-ID", "Content-Type", "Content-Transfer-Encoding",
     "References", "Auto-Submitted", "Precedence", "To", "MIME-Version", "Content-Disposition"]
)
_header_value = st.binary(max_size=120).map(lambda b: b.replace(b"\n", b" "))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(_header_names, _header_value), max_size=12),
    st.binary(max_size=2000),
)
def test_random_headers_and_bodies_never_raise(
    headers: list[tuple[str, bytes]], body: bytes
) -> None:
    raw = b"".join(name.encode() + b": " + value + b"\r\n" for name, value in headers)
    parsed = parse_mail(raw + b"\r\n" + body, "x@example.org", own_address=OWN)
    assert "\n" not in parsed.subject and "\r" not in parsed.subject
    assert parsed.message_id.startswith("<") and "\n" not in parsed.message_id


def test_display_name_that_looks_like_an_address_is_not_the_sender() -> None:
    raw = mail("From: =?utf-8?q?=3Cvictim=40example=2Eorg=3E?= <real@example.org>\nSubject: help")
    assert parse_mail(raw).sender == "real@example.org"


def test_an_address_only_in_decoded_text_is_no_from_address() -> None:
    # An encoded word decoding to an address is display text: the header holds no address.
    raw = (b"Authentication-Results: mx.test; dmarc=pass header.from=example.org\r\n"
           b"From: =?utf-8?q?alice=40example=2Eorg?=\r\nSubject: help\r\n\r\nhi\r\n")
    parsed = parse_mail(raw, "eve@evil.example", authserv_id="mx.test")
    assert (parsed.sender, parsed.sender_auth) == ("eve@evil.example", "none")
    assert parse_mail(raw, "", authserv_id="mx.test").not_answered == "null sender"
    named = raw.replace(b"?=\r\n", b"?= <alice@example.org>\r\n")
    assert parse_mail(named, "eve@evil.example", authserv_id="mx.test").sender_auth == "pass"
