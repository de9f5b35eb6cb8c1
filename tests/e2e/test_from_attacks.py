"""A From header that holds no address, through the listener.

``From: =?utf-8?q?alice=40example=2Eorg?=`` is display text that decodes to alice's
address; it holds no address, and DMARC checkers read none in it. Such a mail does not
speak for alice, even with our MTA's ``pass`` for her domain: it is answered at its
envelope sender and proves nothing.
"""

from __future__ import annotations

import smtplib
from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import InboundMessage, Player
from tests.support.mail import SERVER_ADDRESS
from tests.support.post import ALICE, BOB, Post, wait_for_replies
from tests.support.signup import code_subject

EVE = "eve@evil.example"
AUTHSERV_ID = "mx.emergo.test"
OUR_RECEIVED = (
    f"Received: from client.evil.example (client.evil.example [192.0.2.7])\r\n"
    f"\tby {AUTHSERV_ID} (Postfix) with ESMTPS id 4Xk2Lq0Zz9z1\r\n"
    f"\tfor <{SERVER_ADDRESS}>; Mon, 6 May 2024 10:00:00 +0000 (UTC)"
)
# alice's address as an encoded word: display text, no address.
ALICE_ENCODED = "=?utf-8?q?alice=40example=2Eorg?="


def answer(post: Post, raw: bytes) -> int:
    """The listener's answer code to eve's ``raw`` at DATA."""
    with smtplib.SMTP("127.0.0.1", post.server.config.smtp_port,
                      local_hostname="client.test", timeout=30) as smtp:  # fmt: skip
        try:
            smtp.sendmail(EVE, [SERVER_ADDRESS], raw)
        except smtplib.SMTPDataError as refused:
            return refused.smtp_code
        return 250


def from_alice_encoded(n: int, subject: str) -> bytes:
    """Eve's mail whose From is alice's address as an encoded word, with our MTA's own
    Authentication-Results saying that the DMARC check of alice's domain passed."""
    lines = [
        f"Authentication-Results: {AUTHSERV_ID}; dmarc=pass (p=reject dis=none) "
        f"header.from=example.org",
        OUR_RECEIVED,
        f"From: {ALICE_ENCODED}",
        f"To: {SERVER_ADDRESS}",
        f"Subject: {subject}",
        f"Message-ID: <enc{n}@evil.example>",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=us-ascii",
        "",
        "",
    ]
    return "\r\n".join(lines).encode("ascii")


def test_a_from_without_an_address_does_not_speak_for_the_address_it_decodes_to(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post(authserv_id=AUTHSERV_ID)
    before = {id(m) for m in post.received_by(ALICE) + post.received_by(BOB)}
    # A challenge "from alice": not in her name; answered at the envelope sender.
    assert answer(post, from_alice_encoded(1, "emergo challenge bob")) == 250
    wait_for_replies(post.sessions, "<enc1@evil.example>", ("sent", "failed", "held"))
    # A signup: the pass of alice's domain proves nothing of a mail without a From address.
    assert answer(post, from_alice_encoded(2, "signup mallet mallet-pw1")) == 250
    wait_for_replies(post.sessions, "<enc2@evil.example>", ("sent", "failed", "held"))
    with db_sessions() as session:
        rows = session.scalars(
            select(InboundMessage).where(InboundMessage.message_id.like("<enc%"))
        ).all()
        assert sorted(r.sender or "" for r in rows) == [EVE, EVE]
        mallet = session.scalars(select(Player).where(Player.userid_key == "mallet")).one()
        assert [a.address for a in mallet.addresses] == []
    # Nothing reached alice or bob; eve got the answers, among them the signup's code.
    assert [m for m in post.received_by(ALICE) if id(m) not in before] == []
    assert [m for m in post.received_by(BOB) if id(m) not in before] == []
    to_eve = {str(m["Subject"]) for m in post.received_by(EVE)}
    assert code_subject("mallet") in to_eve
    assert not any(m["To"] != EVE for _, r, m in post.relay.handler.received
                   if str(m["In-Reply-To"]).startswith("<enc"))
