"""Wake-ups across processes on PostgreSQL: storing mail notifies whoever listens, at commit
and only then; SQLite has nothing to listen to."""

from __future__ import annotations

import queue
import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import inbox, wakeups
from pbm_emergo.db.session import create_engine_for

NOW = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
RAW = b"From: alice@example.org\r\nSubject: emergo help\r\n\r\n"


def store(sessions: sessionmaker[Session], message_id: str, *, commit: bool = True) -> None:
    session = sessions()
    try:
        inbox.store_inbound_many(
            session, [inbox.NewInbound(RAW, "alice@example.org", ["pbmserv@localhost"],
                                       message_id, NOW)]
        )
        if commit:
            session.commit()
        else:
            session.rollback()
    finally:
        session.close()


@pytest.mark.postgres
def test_stored_mail_wakes_the_listeners_at_commit(postgres_database_url: str) -> None:
    stop = threading.Event()
    heard: queue.Queue[str] = queue.Queue()

    def listen() -> None:
        for channel in wakeups.listen(postgres_database_url, (wakeups.INBOX,), timeout=0.1,
                                      stopped=stop.is_set):
            heard.put(channel)

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    engine = create_engine_for(postgres_database_url)
    sessions = sessionmaker(engine)
    try:
        # Once as soon as it listens: mail stored before may be waiting.
        assert heard.get(timeout=10) == wakeups.INBOX
        store(sessions, "<rolled-back@example.org>", commit=False)
        with pytest.raises(queue.Empty):
            heard.get(timeout=0.5)
        store(sessions, "<stored@example.org>")
        assert heard.get(timeout=5) == wakeups.INBOX
        # The same mail again (a duplicate, answered 250, nothing new): no wake-up.
        store(sessions, "<stored@example.org>")
        with pytest.raises(queue.Empty):
            heard.get(timeout=0.5)
    finally:
        stop.set()
        listener.join(5)
        engine.dispose()
    assert not listener.is_alive()


def test_only_postgresql_is_listened_to() -> None:
    assert wakeups.listens("postgresql+psycopg://pbm@db.example/pbm")
    assert not wakeups.listens("sqlite:///pbm-emergo.sqlite3")
