"""Shared fixtures: databases on SQLite and PostgreSQL.

Database fixtures are parametrised over both backends (test ids ``[sqlite]`` and
``[postgresql]``; the PostgreSQL ones carry the ``postgres`` marker, so ``-m "not postgres"``
leaves them out):

- ``database_url``: a fresh database migrated to head (a copy of one migrated template, so
  cheap; under the same URL for every test of a worker, so that its engines are kept);
  ``db_config`` is a Config pointing at it, ``db_engine`` / ``db_sessions`` an engine and
  a sessionmaker set up like the server's.
- ``empty_database_url``: a fresh database with no tables (for migration tests).

PostgreSQL: the server in ``PBM_EMERGO_TEST_POSTGRES_URL`` (a role allowed to create
databases; each test gets its own database), else a throwaway cluster started here with the
installed PostgreSQL binaries (initdb/pg_ctl, as the ``postgres`` user when running as root)
and removed at the end. Without either, the PostgreSQL variants are skipped with the reason,
except when ``CI=true``, where they fail.
"""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config, load_config
from pbm_emergo.db.session import create_engine_for, dispose_engines, upgrade_to_head
from tests.support.postgres import PostgresDatabases, ThrowawayCluster, postgres_bindir

# Fixtures that several test folders share, beside the database fixtures below.
pytest_plugins = ["tests.support.fixtures", "tests.support.write_lock"]

POSTGRES_ENV = "PBM_EMERGO_TEST_POSTGRES_URL"
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]

# A pytest worker holds a few hundred thousand objects for the whole run (the modules, the
# collected tests), and with CPython's default thresholds the collector scans them all again
# every few thousand allocations: a tenth of an end-to-end test's CPU time. Run less often,
# and with those objects frozen once the tests are collected, it costs a fraction of that;
# what the tests leave behind is still collected.
gc.set_threshold(10_000, 10, 10)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: twice the CPUs, at most four more than them. Most tests wait on the
    servers, subprocesses and databases they start, so one worker a CPU leaves the CPUs
    idle a third of the time (docs/development.md). ``PYTEST_XDIST_AUTO_NUM_WORKERS``
    still decides where it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cpus = cpus or 1
    return min(2 * cpus, cpus + 4)


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """The URL of a PostgreSQL server's maintenance database (see the module docstring)."""
    url = os.environ.get(POSTGRES_ENV)
    if url:
        yield url
        return
    bindir = postgres_bindir()
    if bindir is None:
        reason = (
            f"PostgreSQL is not available: set {POSTGRES_ENV} or install the Debian "
            "package postgresql (initdb/pg_ctl) to run the PostgreSQL variants"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " (CI=true: not skipping)")
        pytest.skip(reason)
    cluster = ThrowawayCluster(bindir)
    try:
        url = cluster.start()
    except (subprocess.SubprocessError, OSError) as err:
        cluster.stop()
        pytest.fail(f"could not start a throwaway PostgreSQL cluster: {err}")
    try:
        yield url
    finally:
        cluster.stop()


def _worker_database() -> str:
    """The name of this pytest worker's PostgreSQL database (postgres_database_url)."""
    return f"pbm_test_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"


@pytest.fixture(scope="session")
def _postgres_databases(postgres_server_url: str) -> Iterator[PostgresDatabases]:
    databases = PostgresDatabases(postgres_server_url)
    # A run killed in mid-test left its worker's database behind: this run's would clash.
    databases.drop(_worker_database())
    try:
        yield databases
    finally:
        if databases.template:
            databases.drop(databases.template)
        databases.admin.dispose()


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "template.sqlite3"
    upgrade_to_head(url=f"sqlite:///{path}")
    return path


def _empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite3'}"
        return
    databases: PostgresDatabases = request.getfixturevalue("_postgres_databases")
    name = databases.create()
    try:
        yield databases.url(name)
    finally:
        dispose_engines()
        databases.drop(name)


@pytest.fixture(params=BACKENDS)
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new database without any table, on each backend."""
    yield from _empty_database(request, tmp_path)


@pytest.fixture(scope="session")
def _sqlite_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where a worker's tests find their SQLite database, one test after another."""
    return tmp_path_factory.mktemp("database") / "test.sqlite3"


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A new database migrated to head, on each backend. Each test of a worker gets its
    database under the same URL (made again from the template), so that the engines that
    served the test before it serve it too: a fresh engine compiles every statement anew,
    a fifth of a database test's CPU time."""
    if request.param == "sqlite":
        template: Path = request.getfixturevalue("_sqlite_template")
        path: Path = request.getfixturevalue("_sqlite_database")
        # The writers' queue goes with the file (db.session.WriterQueue): a connection the
        # test before left open holds up no writer of this one.
        ends = ("-wal", "-shm", "-writers")
        for leftover in (path, *(path.with_name(path.name + end) for end in ends)):
            leftover.unlink(missing_ok=True)
        shutil.copyfile(template, path)
        url = f"sqlite:///{path}"
        try:
            yield url
        finally:
            dispose_engines(keep=[url])
        return
    yield request.getfixturevalue("postgres_database_url")


@pytest.fixture
def postgres_database_url(_postgres_databases: PostgresDatabases) -> Iterator[str]:
    """A new database migrated to head on PostgreSQL only (for PostgreSQL-specific tests)."""
    if _postgres_databases.template is None:
        template_name = _postgres_databases.create()
        upgrade_to_head(url=_postgres_databases.url(template_name))
        _postgres_databases.template = template_name
    # One name a worker, as database_url's SQLite file: its engines are kept.
    name = _postgres_databases.create(
        template=_postgres_databases.template, name=_worker_database()
    )
    url = _postgres_databases.url(name)
    try:
        yield url
    finally:
        dispose_engines(keep=[url])
        _postgres_databases.drop(name)


@pytest.fixture
def db_config(database_url: str, tmp_path: Path) -> Config:
    """A Config for the migrated test database, data directory in tmp_path."""
    return load_config(
        overrides={"database_url": database_url, "data_dir": tmp_path / "data"}, environ={}
    )


# The tests' own engines, one a database URL (see database_url).
_test_engines: dict[str, Engine] = {}


@pytest.fixture
def db_engine(database_url: str) -> Iterator[Engine]:
    engine = _test_engines.get(database_url)
    if engine is None:
        engine = _test_engines[database_url] = create_engine_for(database_url)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def db_sessions(db_engine: Engine) -> sessionmaker[Session]:
    """A sessionmaker like the server's (``with db_sessions.begin() as session: ...``)."""
    return sessionmaker(db_engine, expire_on_commit=False)
