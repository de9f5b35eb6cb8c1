"""Passwords: no password leaves the server, wherever a player types it.

Through the real listener (smtplib), the real workers and command layer, and a real aiosmtpd
relay that receives every mail the server sends. After each mail is processed, the password
is looked for in every mail the relay got, every log record, and every column of every table
(raw mail decoded as the mail it is).
"""

from __future__ import annotations

import logging
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import InboundMessage
from pbm_emergo.game.words import MASK
from pbm_emergo.mail.redact import REDACTED_HEADER
from tests.support.leaks import assert_nowhere
from tests.support.mail import send, wait_for
from tests.support.post import ALICE, BOB, Post, challenge, text

PASSWORD = "alice-pw1"  # alice's password (see make_post)
BOB_PASSWORD = "bob-pw1"


@pytest.fixture
def post(make_post: object, caplog: pytest.LogCaptureFixture) -> Post:
    caplog.set_level(logging.DEBUG, logger="pbm_emergo")
    caplog.set_level(logging.INFO)
    return make_post()  # type: ignore[operator, no-any-return]


@pytest.mark.parametrize(
    "subject",
    [
        "emergo move {board} {pw} alice e4",
        "emergo move {board} alice e4 {pw}",
        "emergo resign {board} {pw} alice",
        "change password {pw} alice NEWpass99",
        "signoff {pw} alice",
        "emergo show {board} {pw}",
        "emergo moves {board} alice {pw}",
        "emergo mvoe {board} alice {pw} e4",
    ],
)
def test_a_password_in_the_wrong_place_is_never_echoed(
    post: Post, caplog: pytest.LogCaptureFixture, subject: str
) -> None:
    board = challenge(post)
    [reply] = post.send(subject.format(board=board, pw=PASSWORD), ALICE)
    assert MASK in text(reply)
    assert_nowhere(post, caplog, PASSWORD)


def test_a_password_alone_in_the_subject_is_answered_with_where_to_start(
    post: Post, caplog: pytest.LogCaptureFixture
) -> None:
    reply = post.one(PASSWORD, ALICE)
    assert str(reply["Subject"]) == "Emergo: start here"
    assert "signup YOURID PASSWORD" in text(reply)
    assert_nowhere(post, caplog, PASSWORD)


def test_signup_with_the_password_where_the_address_goes(
    post: Post, caplog: pytest.LogCaptureFixture
) -> None:
    reply = post.one("signup erin erin@example.org erin-Secret7", "erin@example.org")
    assert "'********' is not a mail address" in text(reply)
    assert_nowhere(post, caplog, "erin-Secret7")


def test_a_password_alone_on_a_line_of_a_multiple_body(
    post: Post, caplog: pytest.LogCaptureFixture
) -> None:
    board = challenge(post)
    mails = post.send("multiple", ALICE, body=f"emergo show {board}\n{PASSWORD}\nhelp\n")
    assert any("There is no command '********'" in text(m) for m in mails)
    assert_nowhere(post, caplog, PASSWORD)


FORWARD = (
    "good luck\n\n---------- Forwarded message ---------\nFrom: Alice <alice@example.org>\n"
    "Date: Mon, 23 Nov 2026 at 10:00\nSubject: emergo move {board} alice {pw} e4\n"
    "To: <pbmserv@localhost>\n\nthe first move\n"
)
OUTLOOK = (
    "good luck\n\n________________________________\nFrom: Alice\nSent: Monday, 23 November "
    "2026 10:00\nTo: pbmserv\nSubject: emergo move {board} alice {pw} e4\n"
)
ORIGINAL = "good luck\n\n-----Original Message-----\nSubject: emergo move {board} alice {pw} e4\n"
INLINE = "good luck\n(my password is {pw}, do not tell)\n"


@pytest.mark.parametrize("body", [FORWARD, OUTLOOK, ORIGINAL, INLINE])
def test_a_password_in_the_comment_never_reaches_the_opponent(
    post: Post, caplog: pytest.LogCaptureFixture, body: str
) -> None:
    board = challenge(post)
    mails = post.send(
        f"emergo move {board} alice {PASSWORD} e4",
        ALICE,
        body=body.format(board=board, pw=PASSWORD),
    )
    to_bob = [m for m in mails if str(m["To"]) == BOB]
    assert to_bob and "good luck" in text(to_bob[0])
    assert_nowhere(post, caplog, PASSWORD)


GERMAN_OUTLOOK = (
    "Revanche?\n\nVon: Alice <alice@example.org>\nGesendet: Montag, 23. November 2026 10:00"
    "\nAn: pbmserv@localhost\nBetreff: emergo move {board} alice {pw} e4\n"
)
# A command written into the body, where it is only the comment, after a header label.
COPIED_COMMAND = "Revanche?\nBetreff: emergo move {board} alice {pw} e4\n"


@pytest.mark.parametrize("body", [GERMAN_OUTLOOK, COPIED_COMMAND])
def test_a_password_in_a_challenge_comment_never_reaches_the_opponent(
    post: Post, caplog: pytest.LogCaptureFixture, body: str
) -> None:
    board = challenge(post)
    mails = post.send(
        "emergo challenge alice bob", ALICE, body=body.format(board=board, pw=PASSWORD)
    )
    to_bob = [m for m in mails if str(m["To"]) == BOB]
    assert to_bob and "Revanche?" in text(to_bob[0])
    assert_nowhere(post, caplog, PASSWORD)


def test_a_quoted_address_in_a_move_comment_stays_off_the_board(
    post: Post, caplog: pytest.LogCaptureFixture
) -> None:
    board = challenge(post)
    body = (
        "Bien joué.\n\nDe : Carol <carol@example.org>\nEnvoyé : lundi 23 novembre 2026\n"
        "À : Alice\nObjet : notre partie\n"
    )
    mails = post.send(f"emergo move {board} alice {PASSWORD} e4", ALICE, body=body)
    to_bob = [m for m in mails if str(m["To"]) == BOB]
    assert to_bob and "Bien joué." in text(to_bob[0])
    assert_nowhere(post, caplog, "carol@example.org")


def test_an_unknown_help_topic_never_echoes_a_password(
    post: Post, caplog: pytest.LogCaptureFixture
) -> None:
    reply = post.one("help Alice-PW1", ALICE)
    assert "There is no help topic '********'" in text(reply)
    assert_nowhere(post, caplog, "Alice-PW1", "alice-pw1")


def test_an_html_only_reply_with_a_blockquote(post: Post, caplog: pytest.LogCaptureFixture) -> None:
    board = challenge(post)
    msg = EmailMessage()
    msg["From"] = ALICE
    msg["To"] = "pbmserv@localhost"
    msg["Subject"] = f"emergo move {board} alice {PASSWORD} e4"
    msg["Message-ID"] = "<html-quote@example.org>"
    msg.set_content(
        "<html><body><div>nice game</div><blockquote>On Monday you wrote:<br>"
        f"emergo move {board} bob {BOB_PASSWORD} e6<br>{BOB_PASSWORD}</blockquote></body></html>",
        subtype="html",
    )
    send(post.server.config.smtp_port, msg)

    def done() -> bool:
        with post.sessions() as session:
            query = select(InboundMessage).where(
                InboundMessage.message_id == "<html-quote@example.org>"
            )
            row = session.scalars(query).one_or_none()
            return row is not None and row.status == "done"

    wait_for(done)
    wait_for(lambda: any("nice game" in text(m) for m in post.received_by(BOB)))
    assert_nowhere(post, caplog, PASSWORD, BOB_PASSWORD)


def test_a_processed_mail_is_kept_redacted(post: Post) -> None:
    board = challenge(post)
    post.send(f"emergo move {board} alice {PASSWORD} e4", ALICE, body=f"pw: {PASSWORD}\n")
    with post.sessions() as session:
        # In the order received: PostgreSQL returns updated rows in no set order.
        rows = session.scalars(select(InboundMessage).order_by(InboundMessage.id)).all()
        assert rows and all(r.status == "done" for r in rows)
        for row in rows:
            kept = BytesParser(policy=policy.default).parsebytes(row.raw)
            assert kept[REDACTED_HEADER]
            assert PASSWORD.encode() not in row.raw
        last = rows[-1]
        kept = BytesParser(policy=policy.default).parsebytes(last.raw)
        # No userid is looked up for the copy: alice is masked there too.
        assert str(kept["Subject"]) == f"emergo move {board} {MASK} {MASK} e4"
        assert str(kept["From"]) == ALICE
        assert f"pw: {MASK}" in kept.get_content()  # type: ignore[attr-defined]


def test_a_dead_letter_keeps_its_original_until_the_retention_period_ends(
    db_sessions: sessionmaker[Session],
) -> None:
    from datetime import UTC, datetime, timedelta

    from pbm_emergo.db import claims, inbox

    received = datetime(2026, 10, 1, tzinfo=UTC)
    original = b"From: a@example.org\r\nSubject: emergo move 101 alice pw-1234 e4\r\n\r\nhi\r\n"
    with db_sessions.begin() as session:
        dead, _ = inbox.enqueue_inbound(
            session, original, "a@example.org", ["pbmserv@localhost"], "<dead@x>", received,
            parsed={"subject": "emergo move 101 alice pw-1234 e4", "body": "hi"},
        )
        done, _ = inbox.enqueue_inbound(
            session, b"Subject: help\r\n\r\n", "b@example.org", ["pbmserv@localhost"], "<done@x>",
            received,
        )
        dead_id, done_id = dead.id, done.id
    for _ in range(claims.MAX_INBOUND_ATTEMPTS):
        with db_sessions.begin() as session:
            claimed = inbox.claim_inbound(session, worker="w", now=received)
            assert claimed is not None and claimed.id == dead_id
            assert inbox.mark_inbound_failed(session, claimed, "broken", received)
    with db_sessions.begin() as session:
        claimed = inbox.claim_inbound(session, worker="w", now=received)
        assert claimed is not None and claimed.id == done_id
        assert inbox.mark_inbound_done(session, claimed, received, raw=b"Subject: kept\r\n\r\n")
    with db_sessions.begin() as session:
        # Within the retention period the dead letter is kept as received, to be run again.
        assert inbox.expire_raw(session, received) == 0
        assert session.get(InboundMessage, dead_id).raw == original  # type: ignore[union-attr]
    with db_sessions.begin() as session:
        assert inbox.expire_raw(session, received + timedelta(days=1)) == 2
    with db_sessions.begin() as session:
        rows = {r.id: r for r in session.scalars(select(InboundMessage))}
        assert rows[dead_id].raw == b"" and rows[done_id].raw == b""
        assert rows[dead_id].parsed is None  # the listener's parse goes with the raw text
        assert rows[dead_id].status == "dead"
        # Nothing is left to run: an expired dead letter cannot be requeued.
        assert not inbox.requeue_inbound(session, dead_id, received + timedelta(days=1))


def test_the_scheduler_removes_raw_mail_after_the_retention_period(
    post: Post, clock: object
) -> None:
    from datetime import timedelta

    post.send("help", ALICE)
    with post.sessions() as session:
        assert all(r.raw for r in session.scalars(select(InboundMessage)))
    clock.now += timedelta(days=31)  # type: ignore[attr-defined]
    assert post.server.expire_raw_mail() > 0
    with post.sessions() as session:
        rows = session.scalars(select(InboundMessage)).all()
        assert rows and all(r.raw == b"" and r.subject for r in rows)
