"""Reading sessions (``read_sessions``): they refuse to write, and on PostgreSQL hold no
transaction open between their statements."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import inbox
from pbm_emergo.db.models import InboundMessage
from pbm_emergo.db.session import WriteInReadingSession, create_engine_for, read_sessions

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def stored(factory: sessionmaker[Session], number: int = 1) -> int:
    with factory.begin() as session:
        message, _ = inbox.enqueue_inbound(
            session, b"Subject: help\r\n\r\n", "a@example.org", ["pbm@example.org"],
            f"<{number}@example.org>", NOW,
        )
        return message.id


def test_a_reading_session_refuses_a_statement_that_writes(
    session_factory: sessionmaker[Session],
) -> None:
    inbound_id = stored(session_factory)
    reads = read_sessions(session_factory)
    with reads() as session, pytest.raises(WriteInReadingSession):
        session.execute(
            update(InboundMessage)
            .where(InboundMessage.id == inbound_id)
            .values(status="done")
        )
    with reads() as session:
        session.add(InboundMessage(
            raw=b"x", envelope_sender="b@example.org", envelope_recipients="[]",
            received_at=NOW,
        ))
        with pytest.raises(WriteInReadingSession):
            session.flush()
    with session_factory() as session:
        assert session.scalars(select(InboundMessage.status)).all() == ["pending"]
    with reads() as session:  # reading goes on as before
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 1


@pytest.mark.postgres
def test_a_reading_session_on_postgresql_holds_no_transaction_between_its_statements(
    postgres_database_url: str,
) -> None:
    """Each of its statements is a transaction of its own: no BEGIN, no transaction left
    open while a unit of work decides and renders, and a row committed meanwhile is seen
    by the next statement (as at READ COMMITTED inside a transaction)."""
    engine = create_engine_for(postgres_database_url)
    try:
        factory = sessionmaker(engine, expire_on_commit=False)
        reads = read_sessions(factory)
        with reads() as session:
            count = select(func.count()).select_from(InboundMessage)
            assert session.scalar(count) == 0
            status = session.connection().connection.dbapi_connection.info.transaction_status
            assert status.name == "IDLE"
            stored(factory, 2)
            assert session.scalar(count) == 1
    finally:
        engine.dispose()
