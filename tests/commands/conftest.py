"""Mailing commands to `process` on a real migrated database (the shared db fixtures)."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from tests.support.mailer import Mailer


@pytest.fixture(autouse=True)
def _quick_argon2(quick_argon2: None) -> None:
    """Every command test hashes passwords quickly (tests/support/fixtures.py): a whole game
    verifies dozens of times."""


@pytest.fixture
def mailer(db_sessions: sessionmaker[Session], db_config: Config) -> Mailer:
    return Mailer(db_sessions, db_config)


@pytest.fixture
def players(mailer: Mailer) -> Mailer:
    """alice (alice@example.org, password alicepw) and bob (bob@example.org, bobpw)."""
    mailer.signup("alice", "alicepw", "alice@example.org")
    mailer.signup("bob", "bobpw", "bob@example.org")
    return mailer


@pytest.fixture
def game(players: Mailer) -> Mailer:
    """Board 101: alice (Ohs) against bob (Eks), no moves yet."""
    replies = players.send("emergo challenge alice bob")
    assert [r.subject for r in replies] == ["New Emergo Board 101 alice"] * 2
    return players
