from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db.session import dispose_engines, get_sessionmaker, upgrade_to_head

from .support import Relay, make_config


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return make_config(tmp_path)


@pytest.fixture
def session_factory(config: Config) -> Iterator[sessionmaker[Session]]:
    upgrade_to_head(config)
    yield get_sessionmaker(config)
    dispose_engines()


@pytest.fixture
def relay() -> Iterator[Relay]:
    server = Relay()
    server.start()
    yield server
    server.stop()
