"""deploy/: the OpenDKIM, OpenDMARC, Postfix and pbm-emergo examples name one authserv-id,
the header check removes every incoming header that names it (checked by Postfix's own
``postmap -q``), and mail waits while a milter is down."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
POSTMAP = shutil.which("postmap") or "/usr/sbin/postmap"


def setting(path: Path, name: str) -> str:
    match = re.search(rf"^{name}\s+(\S+)$", path.read_text(), re.MULTILINE)
    assert match is not None, f"{path}: no {name}"
    return match[1]


def test_one_authserv_id_everywhere() -> None:
    ours = setting(DEPLOY / "opendmarc" / "opendmarc.conf", "AuthservID")
    assert setting(DEPLOY / "opendkim" / "opendkim.conf", "AuthservID") == ours
    assert f'# authserv_id = "{ours}"' in (DEPLOY / "pbm-emergo.toml").read_text()
    main_cf = (DEPLOY / "postfix" / "main.cf").read_text()
    # Shipped commented out (it needs the milters running), with the step that copies the
    # table it names.
    assert re.search(r"^# header_checks = regexp:/etc/postfix/header_checks$", main_cf,
                     re.MULTILINE)
    assert "install -m 0644 deploy/postfix/header_checks /etc/postfix/header_checks" in main_cf
    for port in (setting(DEPLOY / "opendkim" / "opendkim.conf", "Socket"),
                 setting(DEPLOY / "opendmarc" / "opendmarc.conf", "Socket")):  # fmt: skip
        number = port.split(":")[1].split("@")[0]
        assert f"inet:127.0.0.1:{number}" in main_cf


def test_milters_that_are_down_make_mail_wait() -> None:
    main_cf = (DEPLOY / "postfix" / "main.cf").read_text()
    assert re.search(r"^# milter_default_action = tempfail$", main_cf, re.MULTILINE)


def test_the_optional_parts_are_off_as_shipped() -> None:
    """Every setting of deploy/postfix/main.cf that is on names only files a recipe copies
    (transport, pbm-emergo-recipients): the milters and header_checks are commented out."""
    main_cf = (DEPLOY / "postfix" / "main.cf").read_text()
    active = [line for line in main_cf.splitlines() if line and not line.startswith("#")]
    assert [line.split(" =")[0] for line in active] == [
        "relay_domains", "transport_maps", "relay_recipient_maps"
    ]


def header_check(tmp_path: Path, header: str) -> str:
    """What Postfix's header_checks table of deploy/ does with ``header`` (a whole header,
    folded as it arrived): its action, or "" when no pattern matches."""
    # postmap reads a configuration; the empty one will do. One changed in the last moment
    # makes postmap wait about 2 s first: it is made once, and dated an hour back.
    main_cf = tmp_path / "main.cf"
    if not main_cf.exists():
        main_cf.touch()
        an_hour_ago = time.time() - 3600
        os.utime(main_cf, (an_hour_ago, an_hour_ago))
    table = DEPLOY / "postfix" / "header_checks"
    done = subprocess.run(
        [POSTMAP, "-c", str(tmp_path), "-q", header, f"regexp:{table}"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr  # 1: not found
    return done.stdout.strip()


@pytest.mark.skipif(not Path(POSTMAP).exists(), reason="needs postmap (Debian package postfix)")
def test_the_header_check_drops_every_header_naming_our_id(tmp_path: Path) -> None:
    ours = setting(DEPLOY / "opendmarc" / "opendmarc.conf", "AuthservID")
    encoded = "=?us-ascii?q?" + ours.replace(".", "=2E") + "?="
    forged = [
        f"{ours}; dmarc=pass header.from=x.org",
        f"{ours} 1; dmarc=pass",
        f"{ours} (c); dmarc=pass header.from=x.org",
        f"(c) {ours}; dmarc=pass header.from=x.org",
        f"{ours.upper()}; dmarc=pass header.from=x.org",
        f'"{ours}"; dmarc=pass header.from=x.org',
        f"{encoded}; dmarc=pass header.from=x.org",
        "=?utf-8?b?bXguZXhhbXBsZS5vcmc=?=; dmarc=pass header.from=x.org",
        f"\r\n\t{ours}\r\n\t; dmarc=pass header.from=x.org",
        f"mx.other.example; dkim=pass (our {ours} said so) header.d=x.org",
        f"mx.other.example;\r\n\tdmarc=pass header.from=x.org;\r\n\tarc=pass smtp.remote-ip={ours}",
    ]
    for value in forged:
        for name in ("Authentication-Results", "authentication-results"):
            assert header_check(tmp_path, f"{name}: {value}") == "IGNORE", value
    # Other servers' headers, and other headers naming our id, pass.
    for header in (
        "Authentication-Results: mx.other.example; dmarc=fail header.from=x.org",
        f"X-Authentication-Results: {ours}; dmarc=pass",
        f"Received: from client.test by {ours} (Postfix)",
    ):
        assert header_check(tmp_path, header) == "", header
