"""The process-wide engines: one a database URL, forgotten by ``dispose_engines`` unless
kept, and a kept one serves a database made again under its URL."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from pbm_emergo.config import Config, load_config
from pbm_emergo.db import session as session_module
from pbm_emergo.db.session import dispose_engines, get_engine, get_sessionmaker, upgrade_to_head


def config_for(url: str) -> Config:
    return load_config(overrides={"database_url": url}, environ={})


def test_a_kept_engine_serves_the_database_made_again_and_the_others_are_forgotten(
    tmp_path: Path,
) -> None:
    template = tmp_path / "template.sqlite3"
    upgrade_to_head(url=f"sqlite:///{template}")
    kept_path, other_path = tmp_path / "kept.sqlite3", tmp_path / "other.sqlite3"
    shutil.copyfile(template, kept_path)
    shutil.copyfile(template, other_path)
    kept, other = config_for(f"sqlite:///{kept_path}"), config_for(f"sqlite:///{other_path}")
    try:
        engine, other_engine = get_engine(kept), get_engine(other)
        factory = get_sessionmaker(kept)
        with factory.begin() as session:
            session.execute(text("CREATE TABLE scratch (x INTEGER)"))
            session.execute(text("INSERT INTO scratch VALUES (1)"))

        dispose_engines(keep=[f"sqlite:///{kept_path}"])
        # The database removed and made again under the same URL, as a test's is.
        for leftover in (kept_path, *(tmp_path / f"kept.sqlite3{e}" for e in ("-wal", "-shm"))):
            leftover.unlink(missing_ok=True)
        shutil.copyfile(template, kept_path)

        assert get_engine(kept) is engine
        assert get_engine(other) is not other_engine
        assert get_sessionmaker(kept) is not factory  # session factories are made again
        with get_sessionmaker(kept)() as session:
            # The new file, not the old one through a connection left open in the pool.
            names = session.execute(
                text("SELECT name FROM sqlite_master WHERE name = 'scratch'")
            ).all()
            assert names == []
            assert session.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1
    finally:
        dispose_engines()
    assert get_engine(kept) is not engine  # forgotten when not kept
    dispose_engines()


def test_a_connection_left_writing_on_the_removed_file_holds_up_no_writer_of_the_new_one(
    tmp_path: Path,
) -> None:
    template = tmp_path / "template.sqlite3"
    upgrade_to_head(url=f"sqlite:///{template}")
    path = tmp_path / "kept.sqlite3"
    url = f"sqlite:///{path}"
    shutil.copyfile(template, path)
    config = config_for(url)
    left_open = get_engine(config).connect()
    try:
        left_open.begin()  # a write transaction: it holds the writers' queue of the file
        left_open.execute(text("CREATE TABLE scratch (x INTEGER)"))
        dispose_engines(keep=[url])
        for end in ("", "-wal", "-shm", "-writers"):
            (tmp_path / f"kept.sqlite3{end}").unlink(missing_ok=True)
        shutil.copyfile(template, path)
        # Written at once (held up, the write would fail after the queue's timeout).
        with get_sessionmaker(config).begin() as session:
            session.execute(text("CREATE TABLE other (x INTEGER)"))
        with get_sessionmaker(config)() as session:
            assert session.execute(text("SELECT count(*) FROM other")).scalar() == 0
    finally:
        left_open.rollback()
        left_open.close()
        dispose_engines()


@pytest.mark.postgres
def test_a_pooled_connection_the_server_dropped_while_idle_is_replaced_unseen(
    postgres_server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PostgreSQL connection that lay idle in the pool is tested before it is used again,
    so one the server closed meanwhile (a restart, an idle timeout) is replaced and the
    caller sees nothing; one in steady use is not tested (a round trip a transaction)."""
    monkeypatch.setattr(session_module, "PING_AFTER_IDLE_SECONDS", 0.2)
    engine = session_module.create_engine_for(postgres_server_url)
    try:
        with engine.connect() as connection:
            first = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
        with engine.connect() as connection:  # in steady use: the same one, untested
            assert connection.execute(text("SELECT pg_backend_pid()")).scalar_one() == first
        admin = session_module.create_engine_for(postgres_server_url)
        try:
            with admin.connect() as connection:
                killed = connection.execute(
                    text("SELECT pg_terminate_backend(:pid)"), {"pid": first}
                ).scalar_one()
                assert killed
        finally:
            admin.dispose()
        time.sleep(0.3)  # longer than the idle time: the next checkout tests it
        with engine.connect() as connection:
            replaced = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
        assert replaced != first
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_one_statement_on_postgresql_is_its_own_transaction(postgres_server_url: str) -> None:
    """A claim's one statement goes alone (autocommit): what it wrote is seen by others as
    soon as it ran, before the block ends (in a transaction, PostgreSQL would show nobody a
    table made in it before its COMMIT)."""
    engine = session_module.create_engine_for(postgres_server_url)
    try:
        with session_module.one_statement(engine) as connection:
            connection.execute(text("CREATE TABLE one_statement_seen (x int)"))
            with engine.connect() as other:
                assert other.execute(
                    text("SELECT to_regclass('one_statement_seen') IS NOT NULL")
                ).scalar_one()
    finally:
        with engine.begin() as connection:
            connection.execute(text("DROP TABLE IF EXISTS one_statement_seen"))
        engine.dispose()


@pytest.mark.postgres
def test_a_claim_runs_on_a_connection_the_pool_has_just_tested(
    postgres_server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The test of an idle connection leaves it idle: a claim's one statement then switches
    it to autocommit (which PostgreSQL's driver refuses inside a transaction)."""
    monkeypatch.setattr(session_module, "PING_AFTER_IDLE_SECONDS", 0.1)
    engine = session_module.create_engine_for(postgres_server_url)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        time.sleep(0.2)  # idle longer than that: the next checkout tests it
        with session_module.one_statement(engine) as connection:
            assert connection.execute(text("SELECT 1")).scalar_one() == 1
    finally:
        engine.dispose()
