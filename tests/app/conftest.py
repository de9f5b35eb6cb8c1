"""Calling the game's operations directly, each in a unit of work of its own, on a real
migrated database (the shared db fixtures)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TypeVar

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.config import Config

START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
T = TypeVar("T")


@pytest.fixture(autouse=True)
def _quick_argon2(quick_argon2: None) -> None:
    """Passwords hash quickly (tests/support/fixtures.py): a game verifies many times."""


class Game:
    """Runs game operations as the scheduler or the robots do: each in one write
    transaction, its writes applied as it finishes, one minute apart."""

    def __init__(self, factory: sessionmaker[Session], config: Config) -> None:
        self.factory = factory
        self.config = config
        self.now = START

    def run(
        self, operation: Callable[[UnitOfWork], T], sender: str = "", *, proven: bool = False
    ) -> T:
        """``operation`` in a unit of work from ``sender`` (``proven``: our MTA proved the
        mail came from there); its writes are stored when it returns (a Refused stores
        nothing)."""
        self.now += timedelta(minutes=1)
        with self.factory.begin() as session:
            unit = UnitOfWork(
                session=session, config=self.config, now=self.now, sender=sender,
                sender_proven=proven, apply_at_once=True,
            )
            result = operation(unit)
            unit.apply_pending()
        return result


@pytest.fixture
def game(db_sessions: sessionmaker[Session], db_config: Config) -> Game:
    return Game(db_sessions, db_config)
