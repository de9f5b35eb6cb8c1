"""Looking for a secret everywhere the server could have put it: every mail the relay got,
every log record, every column of every table (raw mail decoded as the mail it is)."""

from __future__ import annotations

from email import policy
from email.parser import BytesParser

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import Base
from tests.support.post import Post


def mail_texts(raw: bytes) -> list[str]:
    """The texts of a mail as a reader sees them: headers decoded, every text part."""
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    found = [raw.decode("latin-1")]
    for part in msg.walk():
        found.extend(str(value) for value in part.values())
        if part.get_content_maintype() == "text":
            try:
                found.append(str(part.get_content()))
            except (LookupError, ValueError):
                found.append(part.get_payload(decode=True).decode("latin-1"))  # type: ignore[union-attr]
    return found


def stored_texts(session: Session) -> list[str]:
    """Every value of every column of every table, as text (raw mail decoded)."""
    found: list[str] = []
    for table in Base.metadata.sorted_tables:
        for row in session.execute(select(table)):
            for value in row:
                if isinstance(value, bytes):
                    found.extend(mail_texts(value) if value else [])
                elif value is not None:
                    found.append(str(value))
    return found


def assert_nowhere(post: Post, caplog: pytest.LogCaptureFixture, *secrets: str) -> None:
    relayed = [t for m in post.relay.handler.messages() for t in mail_texts(m.as_bytes())]
    logged = [r.getMessage() for r in caplog.records]
    with post.sessions() as session:
        stored = stored_texts(session)
    for secret in secrets:
        for where, texts in (("a relayed mail", relayed), ("the log", logged),
                             ("the database", stored)):  # fmt: skip
            leaks = [t for t in texts if secret in t]
            assert not leaks, f"{secret!r} in {where}: {leaks[0][:300]!r}"
