"""Malformed and unusual mail, through the listener's store and a worker with the real
command layer: no worker crash, and a clear reply wherever a reply is due.

The corpus: our own collection in tests/mail/corpus/, plus CPython's email test data
(Debian package libpython3.11-testsuite, installed by .ci/run), whose binary files (images,
sounds) make good garbage mail too.
"""

from __future__ import annotations

import dataclasses
import os
from datetime import UTC, datetime, timedelta
from email import policy
from email.parser import BytesParser
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db.models import InboundMessage, OutboundMessage
from pbm_emergo.mail.inbound import InboxHandler, OverLimit
from pbm_emergo.mail.limits import over_limit
from pbm_emergo.mail.parse import parse_mail
from pbm_emergo.mail.redact import REDACTED_HEADER
from pbm_emergo.mail.worker import InboxWorker

# A clock of its own, moved eight days on for each corpus mail (see the test).
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

OWN_CORPUS = Path(__file__).parent / "corpus"
CPYTHON_CORPUS = Path("/usr/lib/python3.11/test/test_email/data")
ENVELOPE = "envelope@example.org"


def corpus_files() -> list[Path]:
    files = sorted(OWN_CORPUS.iterdir())
    if CPYTHON_CORPUS.is_dir():
        files += sorted(CPYTHON_CORPUS.iterdir())
    elif os.environ.get("CI") == "true":
        raise RuntimeError(f"{CPYTHON_CORPUS} missing: .ci/run installs libpython3.11-testsuite")
    return files


def test_corpus_is_there() -> None:
    assert len(list(OWN_CORPUS.iterdir())) >= 30
    if os.environ.get("CI") == "true":
        assert len(list(CPYTHON_CORPUS.glob("msg_*.txt"))) >= 40


def check(
    path: Path, config: Config, session_factory: sessionmaker[Session], now: datetime
) -> str | None:
    """Store and process one corpus mail at ``now``; returns what went wrong, or None."""
    raw = path.read_bytes()
    try:
        stored = InboxHandler(session_factory, config, clock=lambda: now).store(
            raw, ENVELOPE, [config.address]
        )
    except OverLimit:
        # Past a bound of mail.limits (a huge header, MIME nested too deep): refused
        # unparsed, as it must be.
        return None if over_limit(raw) is not None else "refused as over a limit"
    if stored.duplicate:
        return None  # the same Message-ID as an earlier corpus mail: stored once, as it must
    with session_factory.begin() as session:
        inbound = session.get(InboundMessage, stored.id)
        if inbound is None or inbound.raw != raw:
            return "not stored exactly"
    outcome = InboxWorker(session_factory, config, clock=lambda: now).run_once()
    if outcome is None or outcome.inbound_id != stored.id:
        return f"not processed in order: {outcome}"
    with session_factory.begin() as session:
        inbound = session.get(InboundMessage, stored.id)
        assert inbound is not None
        # Once processed, the mail is kept as its redacted copy (mail/redact.py).
        kept = BytesParser(policy=policy.default).parsebytes(inbound.raw)
        if REDACTED_HEADER not in kept:
            return "not kept as a redacted copy after processing"
        replies = list(
            session.scalars(select(OutboundMessage).where(OutboundMessage.inbound_id == stored.id))
        )
    parsed = parse_mail(raw, ENVELOPE, own_address=config.address)
    if parsed.not_answered is not None:
        if outcome.status != "ignored" or replies:
            return f"should be ignored ({parsed.not_answered}): {outcome.status}, {len(replies)}"
        return None
    if outcome.status != "done":
        return f"worker outcome {outcome.status}: {inbound.last_error}"
    if not replies:
        return "no reply, though one is due"
    for row in replies:
        reply = BytesParser(policy=policy.default).parsebytes(row.raw)
        body = reply.get_body(preferencelist=("plain",))
        text = body.get_content().strip() if body is not None else ""
        if (
            row.recipient != parsed.sender
            or not reply["Subject"]
            or reply["In-Reply-To"] != parsed.message_id
            or len(text) < 20
        ):
            return f"unclear reply to {row.recipient}: {reply['Subject']!r} {text[:60]!r}"
    return None


def test_malformed_mail_is_handled(config: Config, session_factory: sessionmaker[Session]) -> None:
    config = dataclasses.replace(config, reply_limit=100_000)  # one envelope sender for all
    files = corpus_files()
    problems = {}
    # More than a week apart: a stranger's mail without a command is answered once a week
    # (the corpus mails share their senders), and each of these is due its answer.
    for index, path in enumerate(files):
        problem = check(path, config, session_factory, START + timedelta(days=8 * index))
        if problem is not None:
            problems[f"{path.parent.name}/{path.name}"] = problem
    assert problems == {}
    with session_factory.begin() as session:
        statuses = list(session.scalars(select(InboundMessage.status)))
    # Most of the corpus is answerable mail; it was answered.
    assert statuses.count("done") > len(statuses) // 2
    assert set(statuses) <= {"done", "ignored"}


def test_bounce_and_auto_replies_in_the_corpus_are_ignored(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    handler = InboxHandler(session_factory, config)
    for name in ("bounce-dsn.eml", "vacation-autoreply.eml", "mailing-list.eml"):
        handler.store((OWN_CORPUS / name).read_bytes(), ENVELOPE, [config.address])
    worker = InboxWorker(session_factory, config)
    outcomes = [worker.run_once() for _ in range(3)]
    assert [o.status if o else None for o in outcomes] == ["ignored"] * 3
