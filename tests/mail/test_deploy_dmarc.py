"""deploy/: the OpenDKIM, OpenDMARC, Postfix and pbm-emergo examples name one authserv-id,
and the header check removes exactly the headers that claim it."""

from __future__ import annotations

import re
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def setting(path: Path, name: str) -> str:
    match = re.search(rf"^{name}\s+(\S+)$", path.read_text(), re.MULTILINE)
    assert match is not None, f"{path}: no {name}"
    return match[1]


def test_one_authserv_id_everywhere() -> None:
    ours = setting(DEPLOY / "opendmarc" / "opendmarc.conf", "AuthservID")
    assert setting(DEPLOY / "opendkim" / "opendkim.conf", "AuthservID") == ours
    assert f'# authserv_id = "{ours}"' in (DEPLOY / "pbm-emergo.toml").read_text()
    main_cf = (DEPLOY / "postfix" / "main.cf").read_text()
    assert "header_checks = regexp:/etc/postfix/header_checks" in main_cf
    for port in (setting(DEPLOY / "opendkim" / "opendkim.conf", "Socket"),
                 setting(DEPLOY / "opendmarc" / "opendmarc.conf", "Socket")):  # fmt: skip
        number = port.split(":")[1].split("@")[0]
        assert f"inet:127.0.0.1:{number}" in main_cf


def test_the_header_check_drops_only_headers_with_our_id() -> None:
    ours = setting(DEPLOY / "opendmarc" / "opendmarc.conf", "AuthservID")
    rule = next(
        line for line in (DEPLOY / "postfix" / "header_checks").read_text().splitlines()
        if line.startswith("/")
    )
    pattern, action = rule[1:].rsplit("/", 1)
    assert action.strip() == "IGNORE"
    check = re.compile(pattern.replace("[[:space:]]", r"\s"))
    assert check.match(f"Authentication-Results: {ours}; dmarc=pass header.from=x.org")
    assert check.match(f"Authentication-Results: {ours} 1; dmarc=pass")
    assert not check.match(f"Authentication-Results: {ours}.evil.example; dmarc=pass")
    assert not check.match("Authentication-Results: mx.other.example; dmarc=fail")
