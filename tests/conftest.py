"""Shared fixtures: databases on SQLite and PostgreSQL.

Database fixtures are parametrised over both backends (test ids ``[sqlite]`` and
``[postgresql]``; the PostgreSQL ones carry the ``postgres`` marker, so ``-m "not postgres"``
leaves them out):

- ``database_url``: a fresh database migrated to head (a copy of one migrated template, so
  cheap); ``db_config`` is a Config pointing at it, ``db_engine`` / ``db_sessions`` an engine
  and a sessionmaker set up like the server's.
- ``empty_database_url``: a fresh database with no tables (for migration tests).

PostgreSQL: the server in ``PBM_EMERGO_TEST_POSTGRES_URL`` (a role allowed to create
databases; each test gets its own database), else a throwaway cluster started here with the
installed PostgreSQL binaries (initdb/pg_ctl, as the ``postgres`` user when running as root)
and removed at the end. Without either, the PostgreSQL variants are skipped with the reason,
except when ``CI=true``, where they fail.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config, load_config
from pbm_emergo.db.session import create_engine_for, dispose_engines, upgrade_to_head

POSTGRES_ENV = "PBM_EMERGO_TEST_POSTGRES_URL"
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _postgres_bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class ThrowawayCluster:
    """A PostgreSQL cluster in a temporary folder on a free loopback port."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.folder = Path(tempfile.mkdtemp(prefix="pbm-emergo-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        # initdb refuses to run as root: run the server as the postgres user then.
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, user="postgres")
            self.prefix = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        subprocess.run([*self.prefix, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> str:
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.data),
            "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options,
            "-l", str(self.folder / "server.log"), "-w", "-t", "60", "start",
        )  # fmt: skip
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """The URL of a PostgreSQL server's maintenance database (see the module docstring)."""
    url = os.environ.get(POSTGRES_ENV)
    if url:
        yield url
        return
    bindir = _postgres_bindir()
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


class PostgresDatabases:
    """Creates and drops databases on one server."""

    def __init__(self, server_url: str) -> None:
        self.server_url = make_url(server_url)
        self.admin: Engine = create_engine(self.server_url, isolation_level="AUTOCOMMIT")
        self.template: str | None = None

    def url(self, name: str) -> str:
        return self.server_url.set(database=name).render_as_string(hide_password=False)

    def create(self, template: str | None = None) -> str:
        name = f"pbm_test_{uuid.uuid4().hex[:12]}"
        clause = f" TEMPLATE {template}" if template else ""
        with self.admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {name}{clause}"))
        return name

    def drop(self, name: str) -> None:
        with self.admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture(scope="session")
def _postgres_databases(postgres_server_url: str) -> Iterator[PostgresDatabases]:
    databases = PostgresDatabases(postgres_server_url)
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


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new database migrated to head, on each backend."""
    if request.param == "sqlite":
        template: Path = request.getfixturevalue("_sqlite_template")
        path = tmp_path / "test.sqlite3"
        shutil.copyfile(template, path)
        try:
            yield f"sqlite:///{path}"
        finally:
            dispose_engines()
        return
    yield request.getfixturevalue("postgres_database_url")


@pytest.fixture
def postgres_database_url(_postgres_databases: PostgresDatabases) -> Iterator[str]:
    """A new database migrated to head on PostgreSQL only (for PostgreSQL-specific tests)."""
    if _postgres_databases.template is None:
        template_name = _postgres_databases.create()
        upgrade_to_head(url=_postgres_databases.url(template_name))
        _postgres_databases.template = template_name
    name = _postgres_databases.create(template=_postgres_databases.template)
    try:
        yield _postgres_databases.url(name)
    finally:
        dispose_engines()
        _postgres_databases.drop(name)


@pytest.fixture
def db_config(database_url: str, tmp_path: Path) -> Config:
    """A Config for the migrated test database, data directory in tmp_path."""
    return load_config(
        overrides={"database_url": database_url, "data_dir": tmp_path / "data"}, environ={}
    )


@pytest.fixture
def db_engine(database_url: str) -> Iterator[Engine]:
    engine = create_engine_for(database_url)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def db_sessions(db_engine: Engine) -> sessionmaker[Session]:
    """A sessionmaker like the server's (``with db_sessions.begin() as session: ...``)."""
    return sessionmaker(db_engine, expire_on_commit=False)
