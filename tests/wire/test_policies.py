"""The cached header registry changes speed only: same headers, same bytes, same parse."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm_emergo.wire import policies

CORPUS = Path(__file__).parents[1] / "mail" / "corpus"


def written(with_policy: policy.EmailPolicy) -> bytes:
    msg = EmailMessage(policy=with_policy)
    msg["From"] = "pbmserv@emergo.test"
    msg["To"] = "alice@example.org"
    msg["Subject"] = "Emergo Board 101 bob \u00e9t\u00e9 " + "long " * 30
    msg["Date"] = "Mon, 23 Nov 2026 13:00:00 +0000"
    msg["Message-ID"] = "<1.pbm-emergo@emergo.test>"
    msg["References"] = "<board-101.pbm-emergo@emergo.test> <c@example.org>"
    msg.set_content("the board \u00e9\n" * 3, charset="utf-8", cte="8bit")
    return msg.as_bytes(policy=with_policy)


def test_a_mail_is_written_to_the_same_bytes() -> None:
    assert written(policies.WRITE) == written(policy.SMTP)


def test_every_corpus_mail_parses_the_same() -> None:
    files = sorted(CORPUS.glob("*.eml"))
    assert len(files) >= 20
    for path in files:
        raw = path.read_bytes()
        ours = BytesParser(policy=policies.READ).parsebytes(raw)
        stock = BytesParser(policy=policy.default).parsebytes(raw)
        assert ours.keys() == stock.keys(), path.name
        for name in ours:
            assert [str(v) for v in ours.get_all(name, [])] == [
                str(v) for v in stock.get_all(name, [])
            ], (path.name, name)
        assert ours.as_bytes(policy=policies.WRITE) == stock.as_bytes(policy=policy.SMTP)


def test_each_header_class_is_made_once() -> None:
    registry = policies.CachedHeaderRegistry()
    assert registry["Subject"] is registry["subject"]
    assert registry["X-Anything"] is registry["x-anything"]
    assert registry["Subject"] is not registry["From"]


def test_the_reading_policy_keeps_mime_structure_headers_and_nothing_else() -> None:
    """The parsed Content-Type of a mail is made once for all the mails that carry the same
    text, and reads as the stock policy reads it; a Subject (what someone wrote) is never
    kept."""
    from email import policy as stock
    from email.parser import BytesParser

    from pbm_emergo.wire.policies import READ

    raw = (b"From: a@example.org\r\nSubject: emergo move 101 alice s3cret e4\r\n"
           b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=\"utf-8\"; format=flowed\r\n"
           b"\r\nhello\r\n")
    first = BytesParser(policy=READ).parsebytes(raw)
    second = BytesParser(policy=READ).parsebytes(raw)
    assert first["Content-Type"] is second["Content-Type"]
    assert first["MIME-Version"] is second["MIME-Version"]
    assert first["Subject"] is not second["Subject"]
    assert first["Subject"] == "emergo move 101 alice s3cret e4"
    registry = READ.header_factory
    assert all(name.lower() in registry.KEPT for name, _ in registry._values)
    assert not any("s3cret" in value for _, value in registry._values)
    reference = BytesParser(policy=stock.default).parsebytes(raw)
    assert first.get_content_type() == reference.get_content_type() == "text/plain"
    assert first["Content-Type"].params == reference["Content-Type"].params
    assert first.get_content() == reference.get_content()


COMPAT32 = policy.compat32.clone(linesep="\r\n", mangle_from_=False, max_line_length=998)


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["To", "Subject", "Message-ID", "References", "Content-Type"]),
    value=st.text(
        alphabet=st.sampled_from(list("ab ;,:=\"<>@.-_/()\t\\'!~\n\r\x00\u00e9")),
        max_size=1100,
    ),
)
def test_the_reply_policy_writes_every_header_as_compat32_does(name: str, value: str) -> None:
    # The plain values it writes itself, the others through compat32's own round.
    def folded(with_policy: policy.Policy) -> bytes | str:
        try:
            return with_policy.fold_binary(name, value)
        except Exception as error:  # the same refusal, if any
            return repr(error)

    assert folded(policies.WRITE_COMPAT32) == folded(COMPAT32)
    assert folded(policies.COMPAT32) == folded(policy.compat32)
