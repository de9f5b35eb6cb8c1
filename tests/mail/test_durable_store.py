"""A mail is on the disk before its 250: on SQLite the listener's store commits at
``synchronous = FULL`` (the commit is synced), every other write transaction at ``NORMAL``
(a crash of the process loses none of it; a worker's transaction a crash of the machine
loses is done again, since its mail was kept), and the two levels take turns on one pooled
connection without either staying for the other's transactions. On PostgreSQL the same
with ``synchronous_commit`` on and off; a claim's statement, its own transaction, is not
waited for either."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.inbox import NewInbound
from pbm_emergo.db.session import one_statement
from pbm_emergo.mail.inbound import GroupCommit
from tests.support.clock import START

FULL, NORMAL = 2, 1  # what PRAGMA synchronous says


def new_mail(number: int) -> NewInbound:
    raw = f"From: a@example.org\r\nSubject: help\r\nMessage-ID: <m{number}@e>\r\n\r\nhelp\r\n"
    return NewInbound(raw.encode(), "a@example.org", ["pbmserv@emergo.test"],
                      f"<m{number}@e>", START)


def levels_at_commits(session_factory: sessionmaker[Session], level: str) -> list[Any]:
    """What the statement ``level`` answered at each commit while a worker's write
    transactions and the listener's stores (three mails) take turns on the pool."""
    engine = session_factory.kw["bind"]
    levels: list[Any] = []

    def level_at_commit(connection: Any) -> None:
        cursor = connection.connection.dbapi_connection.cursor()
        try:
            cursor.execute(level)
            levels.append(cursor.fetchone()[0])
        finally:
            cursor.close()

    def a_worker_writes() -> None:
        with session_factory.begin() as session:
            session.execute(text("UPDATE inbound_messages SET status = status WHERE id = 0"))

    committer = GroupCommit(session_factory)
    event.listen(engine, "commit", level_at_commit)
    try:
        a_worker_writes()
        committer.submit(lambda: new_mail(1))
        a_worker_writes()
        committer.submit(lambda: new_mail(2))
        committer.submit(lambda: new_mail(3))
        a_worker_writes()
    finally:
        event.remove(engine, "commit", level_at_commit)
    with session_factory() as session:
        assert session.scalar(text("SELECT count(*) FROM inbound_messages")) == 3
    return levels


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_listeners_commits_are_synced_and_the_others_are_not(
    session_factory: sessionmaker[Session],
) -> None:
    levels = levels_at_commits(session_factory, "PRAGMA synchronous")
    assert levels == [NORMAL, FULL, NORMAL, FULL, FULL, NORMAL]


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_on_postgresql_only_the_listeners_commits_wait_for_the_disk(
    session_factory: sessionmaker[Session],
) -> None:
    levels = levels_at_commits(session_factory, "SHOW synchronous_commit")
    assert levels == ["off", "on", "off", "on", "on", "off"]
    with one_statement(session_factory.kw["bind"]) as connection:
        assert connection.exec_driver_sql("SHOW synchronous_commit").scalar() == "off"
