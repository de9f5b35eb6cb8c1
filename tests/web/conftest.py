"""Fixtures of the web and HTML board tests: alice and bob signed up, board 101 between
them (the shared database fixtures make each test run on SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db import players as player_store

from .support import ADDRESSES, PASSWORDS, Mailer


@pytest.fixture(autouse=True)
def quick_argon2(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2id with small parameters: the real algorithm, a millisecond a check."""
    monkeypatch.setattr(
        player_store, "_hasher", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    )


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
