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
    fields = [("Authentication-Results", value) for value in headers]
    assert sender_verdict(fields, OURS, "example.org") == verdict


@pytest.mark.parametrize(
    "value",
    [
        f"{OURS} (ours); dmarc=pass header.from=example.org",
        f"(ours) {OURS}; dmarc=pass header.from=example.org",
        f"{OURS} (ours) 1; dmarc=pass header.from=example.org",
        f"=?us-ascii?q?{OURS.replace('.', '=2E')}?=; dmarc=pass header.from=example.org",
        "=?utf-8?b?bXguZXhhbXBsZS5uZXQ=?=; dmarc=pass header.from=example.org",
        f'"{OURS}"; dmarc=pass header.from=example.org',
        f"{OURS}/4ABC; dmarc=pass header.from=example.org",
        f"{OURS}.evil.example; dmarc=pass header.from=example.org",
        f"{OURS} dmarc=pass header.from=example.org",
    ],
)
def test_only_the_raw_id_first_is_ours(value: str) -> None:
    assert parse_header(value)[0] != OURS
    assert sender_verdict([("Authentication-Results", value)], OURS, "example.org") == "none"


def test_the_raw_id_first_may_be_folded_and_in_any_case() -> None:
    value = f"\r\n\t{OURS.upper()} 1\r\n\t;\r\n\tdmarc=pass (p=none; dis=none) header.from=x.org"
    assert parse_header(value)[0] == OURS
    assert [(r.method, r.result) for r in parse_header(value)[1]] == [("dmarc", "pass")]


RECEIVED = f"from client.example (client.example [192.0.2.1]) by {OURS} (Postfix)"


@pytest.mark.parametrize(
    ("fields", "verdict"),
    [
        # Our milters' header above our Received; the sender's below it.
        ([("Authentication-Results", f"{OURS}; dmarc=pass header.from=example.org"),
          ("Received", RECEIVED)], "pass"),
        ([("Received", RECEIVED),
          ("Authentication-Results", f"{OURS}; dmarc=pass header.from=example.org")], "none"),
        ([("Authentication-Results", f"{OURS}; dmarc=none header.from=example.org"),
          ("Received", RECEIVED),
          ("Authentication-Results", f"{OURS}; dmarc=pass header.from=example.org")], "none"),
        ([("Authentication-Results", f"{OURS}; spf=none smtp.mailfrom=example.org"),
          ("Received", RECEIVED),
          ("Authentication-Results", f"{OURS}; spf=pass smtp.mailfrom=example.org")], "none"),
        # A fail counts wherever it stands: it can only make its own mail less trusted.
        ([("Authentication-Results", f"{OURS}; dmarc=pass header.from=example.org"),
          ("Received", RECEIVED),
          ("Authentication-Results", f"{OURS}; dmarc=fail header.from=example.org")], "fail"),
        ([("received", RECEIVED),
          ("authentication-results", f"{OURS}; dmarc=fail header.from=example.org")], "fail"),
    ],
)  # fmt: skip
def test_a_pass_counts_only_above_the_topmost_received(
    fields: list[tuple[str, str]], verdict: str
) -> None:
    assert sender_verdict(fields, OURS, "example.org") == verdict


def raw_mail(*headers: str) -> bytes:
    return "\r\n".join(
        [*headers, "From: alice@example.org", "To: pbmserv@emergo.test",
         "Subject: signup alice alicepw1", "Message-ID: <ar@example.org>", "", "body", ""]
    ).encode("ascii")  # fmt: skip


@pytest.mark.parametrize(
    "headers",
    [
        (f"Authentication-Results: {OURS} (c); dmarc=pass header.from=example.org",),
        (f"Authentication-Results: (c) {OURS}; dmarc=pass header.from=example.org",),
        ("Authentication-Results: =?us-ascii?q?mx=2Eexample=2Enet?=; dmarc=pass"
         " header.from=example.org",),
        (f"Received: {RECEIVED}",
         f"Authentication-Results: {OURS}; dmarc=pass header.from=example.org"),
        (f"Authentication-Results: {OURS}; dmarc=none header.from=example.org",
         f"Received: {RECEIVED}",
         f"Authentication-Results: {OURS} (c); dmarc=pass header.from=example.org"),
    ],
)  # fmt: skip
def test_parse_mail_reads_the_raw_headers_in_their_order(headers: tuple[str, ...]) -> None:
    parsed = parse_mail(raw_mail(*headers), "alice@example.org", authserv_id=OURS)
    assert parsed.sender_auth == "none"
    assert parsed.command_mail().sender_proven is False
    genuine = parse_mail(
        raw_mail(f"Authentication-Results: {OURS};\r\n\tdmarc=pass header.from=example.org",
                 f"Received: {RECEIVED}"),
        "alice@example.org", authserv_id=OURS,
    )  # fmt: skip
    assert genuine.command_mail().sender_proven is True


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
