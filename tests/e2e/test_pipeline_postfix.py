"""Through a real Postfix (loopback only): a mail submitted to Postfix reaches our listener by
Postfix's transport map, and the reply goes out through Postfix into a local mailbox.

Needs the Debian package postfix and root; .ci/run installs the package. Elsewhere the test
is skipped with the reason, except under CI=true, where it fails.
"""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest

from pbm_emergo.ops.server import MailServer
from tests.support.mail import command_mail, free_port, wait_for

from .postfix import PostfixInstance, require_postfix, server_behind

SERVER = "pbmserv@emergo.test"
PLAYER = "alice@player.test"


@pytest.fixture
def postfix_and_server(tmp_path: Path) -> Iterator[tuple[PostfixInstance, MailServer]]:
    require_postfix()
    postfix = PostfixInstance(
        port=free_port(), listener_port=free_port(), server_domain="emergo.test",
        mailbox_domain="player.test", mailboxes=("alice",),
    )
    with server_behind(postfix, tmp_path, address=SERVER) as (server, _):
        yield postfix, server


def test_mail_through_postfix_and_back(
    postfix_and_server: tuple[PostfixInstance, MailServer],
) -> None:
    postfix, server = postfix_and_server
    msg = command_mail("emergo help", sender=f"Alice <{PLAYER}>",
                       message_id="<via-postfix@player.test>")
    msg.replace_header("To", SERVER)
    with smtplib.SMTP("127.0.0.1", postfix.port, local_hostname="client.player.test") as smtp:
        smtp.sendmail(PLAYER, [SERVER], msg.as_bytes(policy=policy.SMTP))
        # Postfix refuses what is neither for us nor for its own mailboxes.
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            smtp.sendmail(PLAYER, ["someone@example.com"], b"Subject: x\r\n\r\nx\r\n")

    [raw] = wait_for(lambda: postfix.delivered("alice"), timeout=60, interval=0.2)
    reply = BytesParser(policy=policy.default).parsebytes(raw)
    assert reply["From"] == SERVER
    assert reply["To"] == PLAYER
    assert reply["In-Reply-To"] == "<via-postfix@player.test>"
    assert reply["Auto-Submitted"] == "auto-replied"
    body = reply.get_body(preferencelist=("plain",))
    assert body is not None and "How to play Emergo" in body.get_content()
    # It really went through Postfix, both ways: Postfix's own trace headers.
    assert reply["Delivered-To"] == PLAYER
    assert any("mx.player.test" in str(r) for r in reply.get_all("Received", []))
    log = postfix.log_text()
    assert f"relay=127.0.0.1[127.0.0.1]:{server.config.smtp_port}" in log
    assert "status=sent" in log
