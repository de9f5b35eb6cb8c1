"""Authentication-Results (RFC 8601): the verdict for the From domain, from our MTA only."""

from __future__ import annotations

import pytest

from pbm_emergo.mail.authresults import parse_header, sender_verdict
from pbm_emergo.mail.parse import parse_mail
from tests.support.mail import command_mail

OURS = "mx.example.net"


def test_parse_header_reads_methods_results_and_properties() -> None:
    authserv_id, results = parse_header(
        'MX.Example.NET 1; dkim=pass (good signature) header.d=example.org header.s="s 1"; '
        "spf=fail (sender IP is 192.0.2.1; not permitted) smtp.mailfrom=bob@example.org; "
        "dmarc=fail (p=reject dis=none) header.from=example.org"
    )
    assert authserv_id == "mx.example.net"
    assert [(r.method, r.result) for r in results] == [
        ("dkim", "pass"), ("spf", "fail"), ("dmarc", "fail"),
    ]  # fmt: skip
    assert results[0].properties == {"header.d": "example.org", "header.s": "s 1"}
    assert results[1].properties == {"smtp.mailfrom": "bob@example.org"}


def test_parse_header_with_no_results_or_not_in_the_rfc_form() -> None:
    assert parse_header("mx.example.net; none") == ("mx.example.net", [])
    assert parse_header("mx.example.net garbage; dmarc=fail") == ("", [])
    assert parse_header("") == ("", [])


@pytest.mark.parametrize(
    ("headers", "verdict"),
    [
        ([f"{OURS}; dmarc=fail header.from=example.org"], "fail"),
        ([f"{OURS}; dmarc=pass header.from=example.org"], "pass"),
        # Another server's header is anyone's to write.
        (["mx.attacker.example; dmarc=fail header.from=example.org"], "none"),
        ([f"{OURS}; dmarc=fail header.from=other.example"], "none"),
        # A forged pass never outweighs our fail.
        (
            [f"{OURS}; dmarc=pass header.from=example.org",
             f"{OURS}; dmarc=fail header.from=example.org"],
            "fail",
        ),
        # Without a DMARC result (or with "none": no policy), SPF for the same domain.
        ([f"{OURS}; spf=fail smtp.mailfrom=example.org"], "fail"),
        ([f"{OURS}; spf=fail smtp.mailfrom=bounces@example.org"], "fail"),
        ([f"{OURS}; dmarc=none header.from=example.org; spf=fail smtp.mailfrom=example.org"],
         "fail"),
        ([f"{OURS}; spf=fail smtp.mailfrom=elsewhere.example"], "none"),
        ([f"{OURS}; spf=softfail smtp.mailfrom=example.org"], "none"),
        ([f"{OURS}; dmarc=pass header.from=example.org; spf=fail smtp.mailfrom=example.org"],
         "pass"),
        ([], "none"),
    ],
)
def test_sender_verdict(headers: list[str], verdict: str) -> None:
    assert sender_verdict(headers, OURS, "example.org") == verdict


def test_parse_mail_gives_the_verdict_only_with_an_authserv_id() -> None:
    msg = command_mail(
        "emergo challenge alice bob",
        sender="Alice <alice@Example.org>",
        headers={"Authentication-Results": f"{OURS}; dmarc=fail header.from=example.org"},
    )
    raw = msg.as_bytes()
    assert parse_mail(raw, "alice@example.org").sender_auth == ""
    parsed = parse_mail(raw, "alice@example.org", authserv_id=OURS)
    assert parsed.sender_auth == "fail"
    assert parsed.command_mail().sender_trusted is False
    other = parse_mail(raw, "alice@example.org", authserv_id="mx.other")
    assert other.command_mail().sender_auth == "none"
