"""Fixtures of the web and HTML board tests: alice and bob signed up, board 101 between
them (the shared database fixtures make each test run on SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from tests.support.mailer import ADDRESSES, PASSWORDS, Mailer


@pytest.fixture(autouse=True)
def _quick_argon2(quick_argon2: None) -> None:
    """Every web test hashes passwords quickly (tests/support/fixtures.py)."""


@pytest.fixture
def mailer(db_sessions: sessionmaker[Session], db_config: Config) -> Mailer:
    mailer = Mailer(db_sessions, db_config)
    for userid, password in PASSWORDS.items():
        replies = mailer.send(f"signup {userid} {password}", sender=ADDRESSES[userid])
        assert len(replies) == 1
    return mailer


@pytest.fixture
def game(mailer: Mailer) -> Mailer:
    """Board 101: alice (Ohs) against bob (Eks), no moves yet."""
    replies = mailer.send("emergo challenge alice bob")
    # "New Emergo Board 101 alice" (or, before that Subject, "Emergo Board 101 alice").
    assert len(replies) == 2
    assert all(r.subject.endswith("Emergo Board 101 alice") for r in replies)
    return mailer
