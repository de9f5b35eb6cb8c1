"""Plain headers read without the header parser (parse._PlainHeaders) give exactly what the
full parse gives: checked on generated values of the plain shapes, on near misses, and on
any printable text, unfolded and folded."""

from __future__ import annotations

from email.message import Message
from email.parser import BytesParser

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pbm_emergo.mail.parse import (
    _PLAIN_FROM,
    _PLAIN_MSGID,
    _from_address,
    _header,
    _PlainHeaders,
    parse_mail,
)
from pbm_emergo.wire import policies

PRINTABLE = st.text(alphabet=[chr(c) for c in range(32, 127)], max_size=80)
# Characters that make a value not plain, or that the parsers treat specially.
SPECIAL = st.sampled_from(list("<>()\"\\,;:@.[] \t=?") + ["=?", "=?utf-8?q?x?=", "é", "\x00"])


def near_misses(plain: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A plain value with one special character put somewhere in it."""
    return st.builds(
        lambda value, special, at: value[: at % (len(value) + 1)] + special
        + value[at % (len(value) + 1):],
        plain, SPECIAL, st.integers(min_value=0),
    )


def folded(value: str) -> str:
    """``value`` folded at its first space, as a long header line is."""
    return value.replace(" ", "\r\n ", 1)


def mail(name: str, value: str) -> Message:
    raw = f"{name}: {value}\r\nTo: pbmserv@example.org\r\n\r\nbody\r\n".encode(
        "utf-8", "surrogateescape"
    )
    return BytesParser(policy=policies.READ).parsebytes(raw)


SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
FROMS = st.from_regex(_PLAIN_FROM, fullmatch=True)
MSGIDS = st.from_regex(_PLAIN_MSGID, fullmatch=True)
REFERENCES = st.lists(MSGIDS, min_size=1, max_size=4).map(" ".join)


@SETTINGS
@given(st.one_of(PRINTABLE, near_misses(PRINTABLE)), st.booleans())
@example("emergo move 101 alice secret e4xc4#17", False)
@example("Re: emergo  show 101", True)
@example("=?utf-8?q?emergo_help?=", False)
def test_subject_as_the_parser_gives_it(value: str, fold: bool) -> None:
    msg = mail("Subject", folded(value) if fold else value)
    assert _PlainHeaders(msg).text("Subject") == _header(msg, "Subject")


@SETTINGS
@given(st.one_of(MSGIDS, near_misses(MSGIDS), REFERENCES, PRINTABLE), st.booleans())
@example("<a.b@c.d>", False)
@example("<0@0", False)  # the parser adds the missing ">": not plain
@example("<a@b> <c@d>", True)  # the Message-ID parser reads only the first id
def test_message_ids_as_the_parser_gives_them(value: str, fold: bool) -> None:
    msg = mail("Message-ID", folded(value) if fold else value)
    assert _PlainHeaders(msg).message_id() == _header(msg, "Message-ID")
    msg = mail("References", folded(value) if fold else value)
    assert _PlainHeaders(msg).text("References") == _header(msg, "References")


@SETTINGS
@given(st.one_of(FROMS, near_misses(FROMS), PRINTABLE), st.booleans())
@example("alice@example.org", False)
@example("Alice Smith <Alice@Example.ORG>", True)
@example("Alice. Smith <alice@example.org>", False)  # obsolete phrase: parsed
@example("bob@example.org <alice@example.org>", False)
def test_from_address_as_the_parser_gives_it(value: str, fold: bool) -> None:
    msg = mail("From", folded(value) if fold else value)
    assert _PlainHeaders(msg).from_address() == _from_address(msg)


def test_plain_values_skip_the_parser_and_others_do_not() -> None:
    plain = _PlainHeaders(mail("Subject", "emergo move 101 alice pw e4"))
    assert plain._plain("Subject") == "emergo move 101 alice pw e4"
    folded_subject = _PlainHeaders(mail("Subject", "emergo move\r\n 101"))
    assert folded_subject._plain("Subject") == "emergo move 101"
    for value in ("=?utf-8?q?help?=", "h\u00e9lp", "a\tb"):
        assert _PlainHeaders(mail("Subject", value))._plain("Subject") is None
    assert _PlainHeaders(mail("Subject", "x"))._plain("From") is None


def test_absent_headers_and_repeated_ones_as_the_parser_gives_them() -> None:
    msg = BytesParser(policy=policies.READ).parsebytes(
        b"Subject: first\r\nSubject: second\r\nFrom: a@example.org\r\n"
        b"From: b@example.org\r\n\r\nbody\r\n"
    )
    plain = _PlainHeaders(msg)
    assert plain.text("Subject") == _header(msg, "Subject") == "first"
    assert plain.from_address() == _from_address(msg) == "a@example.org"
    assert plain.message_id() is None and _header(msg, "Message-ID") is None
    assert plain.text("References") is None and _header(msg, "References") is None


def test_a_whole_mail_parses_the_same_either_way() -> None:
    raw = (
        b"From: Alice Smith <alice@example.org>\r\nTo: pbmserv@example.org\r\n"
        b"Subject: Re: emergo move 101 alice pw e4xc4#17\r\n"
        b"Message-ID: <m1.x@example.org>\r\nReferences: <r1@s.t> <r2@s.t>\r\n\r\nhello\r\n"
    )
    parsed = parse_mail(raw, "alice@example.org")
    assert parsed.sender == "alice@example.org"
    assert parsed.subject == "emergo move 101 alice pw e4xc4#17"
    assert parsed.message_id == "<m1.x@example.org>"
    assert parsed.references == ("<r1@s.t>", "<r2@s.t>")
