"""Fixtures shared by several test folders, registered as a plugin by tests/conftest.py
(the database fixtures themselves are in tests/conftest.py).

- ``quick_argon2``: argon2id with small parameters, still the real algorithm (tests/db
  keep the production parameters), so that a password check takes a millisecond instead of
  a third of a second.
- ``config``: the shared test database's Config with the server's address and a free SMTP
  port; ``session_factory`` its sessionmaker; ``relay`` a recording SMTP relay, running.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from argon2 import PasswordHasher
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db import players
from tests.support.hashing import CountingHasher
from tests.support.mail import SERVER_ADDRESS, Relay, free_port


@pytest.fixture
def quick_argon2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        players, "_hasher", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    )


@pytest.fixture
def hasher(monkeypatch: pytest.MonkeyPatch) -> Iterator[CountingHasher]:
    """The server's hasher, quick and counting the passwords it checks (``hasher.checked``)."""
    counting = CountingHasher()
    monkeypatch.setattr(players, "_hasher", counting)
    yield counting


@pytest.fixture
def config(db_config: Config) -> Config:
    return dataclasses.replace(db_config, address=SERVER_ADDRESS, smtp_port=free_port())


@pytest.fixture
def session_factory(db_sessions: sessionmaker[Session]) -> sessionmaker[Session]:
    return db_sessions


@pytest.fixture
def relay() -> Iterator[Relay]:
    server = Relay()
    server.start()
    yield server
    server.stop()
