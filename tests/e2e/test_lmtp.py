"""Mail delivered by LMTP: a whole game through ``pbm-emergo serve --lmtp`` (a real
subprocess, with more listener processes on its socket) with smtplib.LMTP, replies to a
recording relay; and a real Postfix delivering to the listener by its lmtp transport, with
the transport line of deploy/postfix/transport.

The Postfix test needs the Debian package postfix and root (.ci/run installs the package);
elsewhere it is skipped with the reason, except under CI=true, where it fails.
"""

from __future__ import annotations

import os
import re
import signal
import smtplib
import subprocess
import sys
from collections.abc import Iterator
from email import policy
from email.parser import BytesParser
from pathlib import Path
from types import SimpleNamespace

import pytest

import tests.support.post
from pbm_emergo.config import Config
from pbm_emergo.db.session import dispose_engines, get_sessionmaker
from tests.support import lmtp
from tests.support.mail import Relay, command_mail, free_port, make_config, wait_for
from tests.support.post import Post, play_a_short_game
from tests.support.waits import scaled

from .postfix import PostfixInstance, require_postfix, server_behind

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
SERVER = "pbmserv@emergo.test"
PLAYER = "alice@player.test"


def lhlo_answers(port: int) -> bool:
    """Whether 127.0.0.1:``port`` greets an LHLO (the server listens once migrated)."""
    try:
        with smtplib.LMTP("127.0.0.1", port, local_hostname="mx.test", timeout=5) as client:
            return client.ehlo()[0] == 250
    except OSError:
        return False


@pytest.fixture
def lmtp_serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Post]:
    """``pbm-emergo serve --lmtp --listeners 2`` on a free port with its own SQLite, replies
    to a recording relay; its Post delivers every command by LMTP."""
    relay = Relay()
    relay.start()
    config = make_config(tmp_path, outbound=relay.url, listen_protocol="lmtp",
                         reply_limit=100_000)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
    log_path = tmp_path / "serve.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "pbm_emergo", "serve", "--lmtp", "--listeners", "2",
             "--workers", "1", "--port", str(config.smtp_port), "--data-dir",
             str(config.data_dir), "--address", config.address, "--outbound", relay.url,
             "--reply-limit", "100000"],
            stdout=log, stderr=subprocess.STDOUT, env={**env, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
    monkeypatch.setattr(tests.support.post, "send", lmtp.send)
    try:
        wait_for(lambda: lhlo_answers(config.smtp_port), timeout=120, interval=0.2)
        server = SimpleNamespace(config=config)  # what Post reads of a server: its port
        yield Post(server, relay, get_sessionmaker(config))  # type: ignore[arg-type]
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(scaled(90))
        relay.stop()
        dispose_engines()
    log_text = log_path.read_text()
    assert code == 0, log_text
    assert re.search(rf"listening on 127\.0\.0\.1:{config.smtp_port} \(LMTP, 2 processes\)",
                     log_text), log_text


def test_a_whole_game_by_lmtp_through_serve_lmtp(lmtp_serve: Post) -> None:
    post = lmtp_serve
    play_a_short_game(post)
    # Every connection is LMTP, whichever of the three processes takes it.
    port = post.server.config.smtp_port
    for _ in range(12):
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
            assert client.ehlo("mx.test")[0] == 500
            assert client.docmd("LHLO", "mx.test")[0] == 250


def lmtp_transport_line(domain: str, port: int) -> str:
    """The line of deploy/postfix/transport-lmtp, for ``domain`` and ``port``."""
    example = re.search(r"^(\S+)\s+(lmtp:\[127\.0\.0\.1\]:)(\d+)$",
                        (DEPLOY / "postfix" / "transport-lmtp").read_text(), re.MULTILINE)
    assert example is not None
    assert (example.group(1), example.group(3)) == ("emergo.example.org", "2525")
    return f"{domain} {example.group(2)}{port}\n"


class LmtpPostfix(PostfixInstance):
    """The private test Postfix, delivering mail for the server's domain by LMTP."""

    def start(self) -> None:
        super().start()
        (self.conf / "transport").write_text(
            lmtp_transport_line(self.server_domain, self.listener_port)
        )
        result = self._postfix("reload")
        if result.returncode != 0:
            raise RuntimeError(f"postfix reload failed: {result.stdout}{result.stderr}")


@pytest.fixture
def postfix_and_lmtp_server(tmp_path: Path) -> Iterator[tuple[PostfixInstance, Config]]:
    require_postfix()
    postfix = LmtpPostfix(
        port=free_port(), listener_port=free_port(), server_domain="emergo.test",
        mailbox_domain="player.test", mailboxes=("alice",),
    )
    with server_behind(postfix, tmp_path, address=SERVER, listen_protocol="lmtp") as (_, config):
        yield postfix, config


def test_postfix_delivers_to_the_listener_by_lmtp(
    postfix_and_lmtp_server: tuple[PostfixInstance, Config],
) -> None:
    postfix, config = postfix_and_lmtp_server
    msg = command_mail("emergo help", sender=f"Alice <{PLAYER}>",
                       message_id="<via-postfix-lmtp@player.test>")
    msg.replace_header("To", f"{SERVER}, postmaster@emergo.test")
    with smtplib.SMTP("127.0.0.1", postfix.port, local_hostname="client.player.test") as smtp:
        # Two of our recipients in one mail: Postfix's lmtp client delivers it once, in one
        # transaction, and reads one reply for each.
        smtp.sendmail(PLAYER, [SERVER, "postmaster@emergo.test"],
                      msg.as_bytes(policy=policy.SMTP))

    [raw] = wait_for(lambda: postfix.delivered("alice"), timeout=60, interval=0.2)
    reply = BytesParser(policy=policy.default).parsebytes(raw)
    assert reply["From"] == SERVER
    assert reply["In-Reply-To"] == "<via-postfix-lmtp@player.test>"
    body = reply.get_body(preferencelist=("plain",))
    assert body is not None and "How to play Emergo" in body.get_content()
    # Postfix's lmtp client delivered it, and each recipient got its own 250 for the one
    # stored mail.
    log = postfix.log_text()
    sent = re.findall(
        rf"postfix/lmtp\[\d+\]: \w+: to=<([^>]+)>, relay=127\.0\.0\.1\[127\.0\.0\.1\]:"
        rf"{config.smtp_port},.* status=sent \(250 2\.0\.0 OK queued as (\d+)\)", log
    )
    assert sorted(sent) == [("pbmserv@emergo.test", "1"), ("postmaster@emergo.test", "1")], log
