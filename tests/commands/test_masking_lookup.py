"""The words a mail's command line shows are looked up on receipt: only words outside the
command's password places, and each userid or board found to exist is remembered, so that
the listener reads the database only for words it has not seen exist; what it found is
stored with the mail's reading, for the worker."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.commands.masking import candidates
from pbm_emergo.commands.text import CommandText
from pbm_emergo.db.session import read_sessions
from pbm_emergo.game.words import Known
from pbm_emergo.mail.commands import describe
from tests.support.mailer import Mailer


def test_password_places_are_not_looked_up() -> None:
    userids, boards = candidates(["emergo move 1010 alice secretpw e4xc4#3"])
    assert userids == {"alice"}
    assert boards == {1010}
    # A word out of place is still a candidate: it is shown only if it exists.
    userids, _ = candidates(["emergo move 101 secretpw alice e4"])
    assert "secretpw" in userids


@pytest.fixture
def statements(db_sessions: sessionmaker[Session]) -> Iterator[list[str]]:
    """The SELECT statements run on the test database from here on."""
    engine = db_sessions.kw["bind"]
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):  # not SQLite's BEGIN
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    yield seen
    event.remove(engine, "before_cursor_execute", record)


def shown(db_sessions: sessionmaker[Session], subject: str) -> str:
    with read_sessions(db_sessions)() as session:
        return describe(subject, "", session).command


def test_userids_and_boards_found_to_exist_are_not_read_again(
    game: Mailer, db_sessions: sessionmaker[Session], statements: list[str]
) -> None:
    # A word not known to exist is asked every time: it may exist by the next mail.
    for _ in range(2):
        statements.clear()
        assert shown(db_sessions, "emergo games alice carol") == "emergo games alice ********"
        assert len(statements) == 1
    game.signup("carol", "carolpw", "carol@example.org")
    statements.clear()
    assert shown(db_sessions, "emergo games alice carol") == "emergo games alice carol"
    # carol was read once more (the signup's own lookups may have found her already) ...
    assert len(statements) <= 1
    # ... and is known to exist from then on, as alice is (found when she signed up).
    statements.clear()
    assert shown(db_sessions, "emergo games carol alice") == "emergo games carol alice"
    assert shown(db_sessions, "emergo move 101 alice alicepw e4#1") == (
        "emergo move 101 alice ******** e4#1"
    )
    assert statements == []
    assert shown(db_sessions, "emergo move 101 carol carolpw e4#1") == (
        "emergo move 101 carol ******** e4#1"
    )
    assert statements == []  # the password's place is not looked up


def test_what_the_listener_found_known_is_stored_with_the_reading(
    game: Mailer, db_sessions: sessionmaker[Session]
) -> None:
    with read_sessions(db_sessions)() as session:
        text = describe("emergo move 101 alice alicepw e4#1", "", session)
    # (101 is too short to be a password: shown whether it exists or not, not looked up.)
    assert text.known == Known(userids=frozenset({"alice"}))
    stored = text.to_stored()
    assert CommandText.from_stored(stored) == text
    # A reading stored before the known words were kept has none: the worker looks the
    # words up again.
    del stored["known"]
    assert CommandText.from_stored(stored).known is None
    # Read without the database, nothing is known yet; a `multiple` mail's lines are looked
    # up when they run.
    assert describe("emergo move 101 alice alicepw e4#1", "").known is None
    with read_sessions(db_sessions)() as session:
        assert describe("multiple", "emergo show 101\nemergo show 101", session).known is None
