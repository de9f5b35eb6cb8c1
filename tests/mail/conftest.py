"""Mail fixtures on top of the shared database fixtures (tests/conftest.py): every test that
uses ``config``/``session_factory`` runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config

from .support import SERVER_ADDRESS, Relay, free_port


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
