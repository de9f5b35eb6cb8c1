"""A property test. For random passwords placed in random command lines, Subjects,
`multiple` bodies, forwarded mails, Outlook quotes and HTML mails, the password appears in no
reply, no log record and no stored column once the mail is processed.

Each example stores a mail with the listener's own store (InboxHandler.store, as a DATA
command does) and runs the real inbox worker and command layer until the inbox is empty.
"""

from __future__ import annotations

import itertools
import logging
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.commands.masking import is_public
from pbm_emergo.config import Config
from pbm_emergo.db import games, players
from pbm_emergo.db.models import OutboundText
from pbm_emergo.game.words import Known
from pbm_emergo.mail.inbound import InboxHandler
from pbm_emergo.mail.worker import InboxWorker
from tests.support.leaks import mail_texts, stored_texts

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
SERVER = "pbmserv@localhost"
COUNTER = itertools.count(1)

ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!$%&*+-_."


def password_like(text: str) -> bool:
    """A password a player could choose that the server cannot tell from a known word."""
    return (
        any(c.isalpha() for c in text)
        and any(c.isdigit() for c in text)
        and not is_public(text, Known())
        and not text.startswith(("-", "."))
    )


passwords = st.text(ALPHABET, min_size=8, max_size=20).filter(password_like)

# Where the password goes: {pw} the password, {board} the board, {me} the player.
SUBJECTS = [
    "emergo move {board} {me} {pw} e4",  # the right place
    "emergo move {board} {pw} {me} e4",
    "emergo move {board} {me} e4 {pw}",
    "emergo resign {board} {pw} {me}",
    "change password {pw} {me} NEWpass99",
    "signoff {pw} {me}",
    "signup newbie newbie@example.org {pw}",
    "emergo show {board} {pw}",
    "emergo challenge {me} {pw}",
    "{pw}",
    "Re: Emergo Board {board} {pw}",
]
BODIES = [
    "",
    "my move\n",
    "good luck ({pw})\n",
    "ok\n\n---------- Forwarded message ---------\nFrom: me\nSubject: emergo move {board} "
    "{me} {pw} e4\n",
    "ok\n\n________________________________\nFrom: me\nSent: today\nSubject: emergo move "
    "{board} {me} {pw} e4\n",
    "ok\n\n-----Original Message-----\nemergo move {board} {me} {pw} e4\n",
    "ok\n\nOn Monday, me wrote:\n> emergo move {board} {me} {pw} e4\n",
]
MULTIPLE_LINES = [
    "emergo show {board}",
    "{pw}",
    "emergo move {board} {me} {pw} e4",
    "emergo move {board} {pw} e4",
    "help {pw}",
    "emergo games {me}",
]


@pytest.fixture
def setup(
    db_config: Config, db_sessions: sessionmaker[Session], quick_argon2: None
) -> tuple[Config, sessionmaker[Session]]:
    return db_config, db_sessions


@pytest.mark.slow
@settings(
    max_examples=40, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    password=passwords,
    subject=st.sampled_from(SUBJECTS),
    body=st.sampled_from(BODIES),
    lines=st.lists(st.sampled_from(MULTIPLE_LINES), min_size=1, max_size=4),
    kind=st.sampled_from(["subject", "multiple", "html"]),
)
# A password that is a well-formed userid, where a command without a password expects one.
@example(
    password="psWK9yeFBCPt_4kB", subject="emergo challenge {me} {pw}", body="",
    lines=["emergo show {board}"], kind="subject",
)
def test_a_password_is_never_shown_sent_logged_or_stored(
    setup: tuple[Config, sessionmaker[Session]],
    caplog: pytest.LogCaptureFixture,
    password: str,
    subject: str,
    body: str,
    lines: list[str],
    kind: str,
) -> None:
    config, factory = setup
    n = next(COUNTER)
    me, other = f"pl{n}a", f"pl{n}b"
    address = f"{me}@example.org"
    with factory.begin() as session:
        white = players.create_player(session, me, password, [address], NOW)
        black = players.create_player(session, other, f"other-{n}-pw", [f"{other}@x.org"], NOW)
        board = games.create_board(session, white, black, NOW).number
    values = {"pw": password, "board": board, "me": me}
    msg = EmailMessage()
    msg["From"] = address
    msg["To"] = SERVER
    msg["Message-ID"] = f"<prop{n}@example.org>"
    if kind == "multiple":
        msg["Subject"] = "multiple"
        msg.set_content("\n".join(line.format(**values) for line in lines) + "\n")
    elif kind == "html":
        msg["Subject"] = subject.format(**values)
        quoted = body.format(**values).replace("\n", "<br>")
        msg.set_content(
            f"<html><body><div>hello</div><blockquote>{quoted}{password}</blockquote>"
            "</body></html>",
            subtype="html",
        )
    else:
        msg["Subject"] = subject.format(**values)
        msg.set_content(body.format(**values) or "\n")

    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="pbm_emergo"):
        handler = InboxHandler(factory, config, clock=lambda: NOW)
        handler.store(msg.as_bytes(policy=policy.SMTP), address, [SERVER])
        worker = InboxWorker(factory, config, clock=lambda: NOW)
        while worker.run_once() is not None:
            pass

    with factory() as session:
        stored = stored_texts(session)
        replies = [
            t for raw in session.scalars(select(OutboundText.raw)) for t in mail_texts(raw)
        ]
    assert replies, "every mail here gets a reply"
    logged = [r.getMessage() for r in caplog.records]
    for where, texts in (("a reply", replies), ("the log", logged), ("the database", stored)):
        leaks = [t for t in texts if password in t]
        assert not leaks, f"{password!r} in {where}: {leaks[0][:300]!r}"
