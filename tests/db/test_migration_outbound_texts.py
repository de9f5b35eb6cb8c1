"""The migration that moves an outbox mail's bytes to ``outbound_texts`` keeps every mail's
bytes, up and down again (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text

from pbm_emergo.db.session import create_engine_for, downgrade_to, upgrade_to_head

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
MAILS = {"a@example.org": b"Subject: one\r\n\r\nfirst\r\n", "b@example.org": b"\x00\xff" * 9000}


def test_each_mail_keeps_its_bytes_up_and_down(empty_database_url: str) -> None:
    upgrade_to_head(url=empty_database_url)
    downgrade_to("0021_inbound_lines", url=empty_database_url)
    engine = create_engine_for(empty_database_url)
    try:
        with engine.begin() as connection:
            for recipient, raw in MAILS.items():
                connection.execute(
                    text("INSERT INTO outbound_messages (recipient, raw, created_at, status,"
                         " attempts, next_attempt_at, secret) VALUES (:recipient, :raw, :now,"
                         " 'pending', 0, :now, false)"),
                    {"recipient": recipient, "raw": raw, "now": NOW},
                )
        upgrade_to_head(url=empty_database_url)
        with engine.connect() as connection:
            moved = connection.execute(text(
                "SELECT m.recipient, t.raw FROM outbound_messages m"
                " JOIN outbound_texts t ON t.id = m.id"
            )).all()
        assert {recipient: bytes(raw) for recipient, raw in moved} == MAILS

        downgrade_to("0021_inbound_lines", url=empty_database_url)
        with engine.connect() as connection:
            back = connection.execute(text("SELECT recipient, raw FROM outbound_messages")).all()
        assert {recipient: bytes(raw) for recipient, raw in back} == MAILS
    finally:
        engine.dispose()
