"""Engines, sessions and migrations.

One engine and one ``sessionmaker`` per process and database URL (:func:`get_sessionmaker`).
A unit of work is ``with Session.begin() as session:``; functions that touch data receive the
session, they do not open one.

SQLite (the embedded default) is set up for a server: WAL journal (readers never wait for the
writer), a busy timeout (a writer waits for the lock instead of failing), foreign keys on, and
every transaction started with ``BEGIN IMMEDIATE``. The last point matters: with SQLite's
default deferred transactions, a transaction that has read and then wants to write fails at
once with "database is locked" if another connection wrote in between (WAL snapshot
conflict); taking the write lock at BEGIN makes concurrent writers queue up instead, which
for our short transactions is both simpler and correct. Writers take their turn in a
:class:`WriterQueue` first, so that the next one starts as soon as the lock is let go.

On both databases only the commits that promise a mail is kept (:func:`durable_writes`)
wait for the disk; the others (a worker's, the sender's, the scheduler's ...) are done
again if a crash of the machine (on PostgreSQL, of its server) loses them.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import importlib.util
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ParamSpec, TypeAlias, TypeVar, cast

from sqlalchemy import Connection, CursorResult, Result, create_engine, event, inspect, pool, text
from sqlalchemy import Engine as Engine
from sqlalchemy import Pool as Pool
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.orm import Session as Session
from sqlalchemy.orm import sessionmaker

from pbm_emergo.config import Config, create_private_file

# The repository root holds alembic.ini and migrations/. The build maps migrations/ to the
# data package pbm_emergo.migrations (pyproject.toml, [tool.setuptools.package-dir]), so that
# `pbm-emergo db upgrade` works from an installed wheel; a source checkout or an editable
# install reads the folder itself.
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _migrations_dir() -> Path:
    spec = importlib.util.find_spec("pbm_emergo.migrations")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        if Path(location).is_dir():
            return Path(location)
    return PROJECT_ROOT / "migrations"


# The handles the layers above hold without importing SQLAlchemy themselves: a session, the
# factory that opens them (Session, Engine and Pool are re-exported above for the same reason).
SessionFactory: TypeAlias = sessionmaker[Session]

MIGRATIONS_DIR = _migrations_dir()

SQLITE_BUSY_TIMEOUT_MS = 10_000
# Execution option of the engine behind read_sessions(): a unit of work that only reads.
READ_ONLY = "pbm_emergo_read_only"
# Execution option of the engine behind durable_writes(): a commit that must be on disk.
DURABLE = "pbm_emergo_durable"

_T = TypeVar("_T")
_P = ParamSpec("_P")
_WRITES_THREAD = "writes"

_lock = threading.Lock()
_writes: ThreadPoolExecutor | None = None
_engines: dict[str, Engine] = {}
_sessionmakers: dict[str, sessionmaker[Session]] = {}


def normalise_url(url: str) -> str:
    """Use psycopg 3 for plain ``postgresql://`` / ``postgres://`` URLs."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


class WriterQueue:
    """The queue of a SQLite database's writers, across threads and processes.

    SQLite lets one connection write at a time; the others wait in its busy handler, which
    sleeps and retries with growing pauses (1, 2, 5, 10 ... 100 ms), so a writer may sleep
    25 ms for a lock that was free after one. Under load that sleeping, not the work, set
    the listener's pace. So every write transaction first takes this queue: a lock for the
    threads of a process, then an exclusive ``flock`` on a file beside the database for the
    processes; the kernel hands the lock to the next waiter as soon as it is let go, and
    SQLite's own lock is then free at once. A process that dies lets go of its ``flock``.
    Correctness never depends on the queue: SQLite's lock stays the real one (a writer that
    does not queue, such as ``sqlite3`` at a terminal, is still waited for by SQLite).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._threads = threading.Lock()
        self._fd = -1
        self._pid = -1

    def acquire(self) -> None:
        if not self._threads.acquire(timeout=SQLITE_BUSY_TIMEOUT_MS / 1000):
            raise sqlite3.OperationalError("database is locked (no turn to write in time)")
        try:
            if self._pid != os.getpid():  # a forked child opens its own file description
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                self._pid = os.getpid()
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        except BaseException:
            self._threads.release()
            raise

    def release(self) -> None:
        try:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._threads.release()


def lower_priority_but_not_writes(nice: int) -> None:
    """Make the calling thread ``nice`` steps nicer (a worker's, the sender's, the robots'
    main thread), keeping one thread at the priority it had for the write transactions
    that :func:`in_write_turn` hands it.

    A nicer process gets a small share of a busy CPU, and while it holds SQLite's one write
    lock everyone else waits for that share: the listener's inserts waited behind workers
    descheduled in mid-transaction (priority inversion). On Linux the nice value belongs to
    a thread and a new thread inherits its creator's, so the writes thread is started
    first. Elsewhere the whole process is niced: writes still work, at the lower priority.
    Raises OSError if the OS refuses the lower priority.
    """
    global _writes
    with _lock:
        if _writes is None:
            _writes = ThreadPoolExecutor(1, thread_name_prefix=_WRITES_THREAD)
            _writes.submit(lambda: None).result()  # the thread exists, at today's priority
    os.nice(nice)


def in_write_turn(work: Callable[[], _T]) -> _T:
    """Run ``work`` (a write transaction) in the writes thread, if this process has one
    (see :func:`lower_priority_but_not_writes`), and return its result or raise its error;
    else run it here. The caller waits, so the work still runs one at a time per caller."""
    writes = _writes
    if writes is None or threading.current_thread().name.startswith(_WRITES_THREAD):
        return work()
    return writes.submit(work).result()


def write_turn(function: Callable[_P, _T]) -> Callable[_P, _T]:
    """``function`` (a write transaction) run by :func:`in_write_turn` when called."""

    @functools.wraps(function)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        return in_write_turn(lambda: function(*args, **kwargs))

    return run


_writer_queues: dict[str, WriterQueue] = {}


def writer_queue(database: str) -> WriterQueue:
    """The process's queue for the SQLite database file ``database``."""
    path = os.path.abspath(database) + "-writers"
    with _lock:
        queue = _writer_queues.get(path)
        if queue is None:
            queue = _writer_queues[path] = WriterQueue(path)
        return queue


class QueuedConnection(sqlite3.Connection):
    """A SQLite connection whose write transactions take their turn in a
    :class:`WriterQueue` (taken before ``BEGIN IMMEDIATE``, let go after the commit or
    rollback, also the one of the pool's reset)."""

    writer_queue: WriterQueue | None = None
    _holding = False
    _synced = False  # its commits at synchronous FULL (else NORMAL, as connected)

    def take_turn(self) -> None:
        if self.writer_queue is not None and not self._holding:
            self.writer_queue.acquire()
            self._holding = True

    def end_turn(self) -> None:
        if self._holding:
            self._holding = False
            assert self.writer_queue is not None
            self.writer_queue.release()

    def sync_commits(self, full: bool) -> None:
        """Whether the commits from now on reach the disk before they return (SQLite's
        ``synchronous = FULL``) or the operating system only (``NORMAL``: nothing is lost
        when the process dies; the last commits may be when the machine does). To be set
        outside a transaction, as SQLite asks."""
        if full != self._synced:
            self.execute(f"PRAGMA synchronous = {'FULL' if full else 'NORMAL'}")
            self._synced = full

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self.end_turn()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self.end_turn()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.end_turn()


def _setup_sqlite(engine: Engine, *, foreign_keys: bool) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        # Let SQLAlchemy's "begin" event below issue BEGIN itself (pysqlite would otherwise
        # start deferred transactions on its own, behind our back).
        dbapi_connection.isolation_level = None
        database = engine.url.database
        if isinstance(dbapi_connection, QueuedConnection) and database not in (
            None, "", ":memory:"
        ):
            dbapi_connection.writer_queue = writer_queue(database)
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute(f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Any) -> None:
        # A reading unit of work (read_sessions) takes no lock at BEGIN: it reads a WAL
        # snapshot while writers go on.
        if connection.get_execution_options().get(READ_ONLY):
            _begin(connection, "BEGIN")
        else:
            raw = connection.connection.dbapi_connection
            if not isinstance(raw, QueuedConnection):
                _begin(connection, "BEGIN IMMEDIATE")
                return
            raw.take_turn()
            try:
                raw.sync_commits(bool(connection.get_execution_options().get(DURABLE)))
                _begin(connection, "BEGIN IMMEDIATE")
            except BaseException:
                raw.end_turn()
                raise


def _begin(connection: Any, statement: str) -> None:
    """Run ``statement`` (a BEGIN) on the driver's connection: every unit of work starts
    with one, and SQLAlchemy's handling of a statement costs many times what SQLite does.
    A failure is raised as SQLAlchemy raises any database error (what the callers catch)."""
    try:
        connection.connection.dbapi_connection.execute(statement)
    except sqlite3.Error as err:
        raise DBAPIError.instance(statement, None, err, sqlite3.Error) from err


def create_engine_for(
    url: str, *, foreign_keys: bool = True, poolclass: type[pool.Pool] | None = None
) -> Engine:
    """A new engine for ``url`` with our settings (see the module docstring).

    ``foreign_keys=False`` is for migrations only: SQLite batch migrations copy and drop
    tables, and with foreign keys on, dropping a table would cascade into its children.
    """
    url = normalise_url(url)
    parsed = make_url(url)
    # An error's text must not carry the statement's parameters: they hold raw mail (and so
    # passwords), and such texts end up in logs and in last_error columns.
    kwargs: dict[str, Any] = {"hide_parameters": True}
    if poolclass is not None:
        kwargs["poolclass"] = poolclass
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:" and not database.startswith("file:"):
            # Its folder and the file only its owner may read, whatever the umask: it holds
            # password hashes, addresses and mail. SQLite gives the -wal, -shm and -journal
            # files the database file's mode.
            Path(database).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            create_private_file(Path(database))
            # Writers queue for their turn instead of sleeping in SQLite's busy handler.
            kwargs["connect_args"] = {"factory": QueuedConnection}
        engine = create_engine(url, **kwargs)
        _setup_sqlite(engine, foreign_keys=foreign_keys)
    else:
        engine = create_engine(url, **kwargs)
        _ping_when_idle(engine.pool)
        _setup_postgresql(engine)
    return engine


def _setup_postgresql(engine: Engine) -> None:
    """Commits wait for the disk only where they must (see :func:`durable_writes`): each
    connection's commits are asynchronous (``synchronous_commit = off``, set once when it
    connects), and a durable transaction sets it back on for itself (``SET LOCAL``) as it
    begins. An asynchronous commit is seen by everyone at once and reaches the disk within
    a fraction of a second (three times ``wal_writer_delay`` at most) or with the next
    commit that waits for the disk, whoever's; only a crash of the PostgreSQL server or
    of the machine in between loses it."""

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("SET synchronous_commit = off")
        finally:
            cursor.close()
        dbapi_connection.commit()  # the SET began a transaction: the setting outlives it

    @event.listens_for(engine, "begin")
    def on_begin(connection: Any) -> None:
        if connection.get_execution_options().get(DURABLE):
            cursor = connection.connection.dbapi_connection.cursor()
            try:
                cursor.execute("SET LOCAL synchronous_commit = on")
            finally:
                cursor.close()


# A pooled connection that lay idle this long is tested before it is used again.
PING_AFTER_IDLE_SECONDS = 1.0


def _ping_when_idle(connections: pool.Pool) -> None:
    """Test a pooled PostgreSQL connection (``SELECT 1``) before handing it out again only
    when it lay idle for :data:`PING_AFTER_IDLE_SECONDS`: a server restarted meanwhile has
    closed it, and one that fails the test is replaced (the pool's ``DisconnectionError``).
    A connection in steady use is not tested: a worker takes one three times a mail, and the
    round trip is as long as a statement's. If the server goes away under one in use, its
    statement fails, SQLAlchemy drops every connection of the pool made before, and the
    operation goes to its caller's retry (a mail to its next attempt, an SMTP client to a
    451)."""

    @event.listens_for(connections, "checkin")
    def checked_in(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(connections, "checkout")
    def checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_SECONDS:
            return  # new, or in steady use
        try:
            cursor = dbapi_connection.cursor()
            try:
                cursor.execute("SELECT 1")
            finally:
                cursor.close()
            # The test began a transaction: end it, so that the connection is handed out
            # idle, as a pooled one is (a claim's autocommit cannot be set inside one).
            dbapi_connection.rollback()
        except Exception as err:
            raise DisconnectionError("the pooled connection failed its test") from err


def get_engine(config: Config) -> Engine:
    """The process-wide engine for the configured database."""
    url = normalise_url(config.effective_database_url)
    with _lock:
        engine = _engines.get(url)
        if engine is None:
            engine = _engines[url] = create_engine_for(url)
        return engine


def get_sessionmaker(config: Config) -> sessionmaker[Session]:
    """The process-wide session factory for the configured database.

    ``expire_on_commit=False`` so that objects loaded in a unit of work can still be read
    (not lazily reloaded) after it commits.
    """
    url = normalise_url(config.effective_database_url)
    engine = get_engine(config)
    with _lock:
        factory = _sessionmakers.get(url)
        if factory is None:
            factory = _sessionmakers[url] = sessionmaker(engine, expire_on_commit=False)
        return factory


@contextlib.contextmanager
def one_statement(engine: Engine) -> Iterator[Connection]:
    """A connection for a write transaction of one statement (a claim). On PostgreSQL the
    statement is its own transaction (autocommit): one round trip, not three (``BEGIN``, the
    statement, ``COMMIT``). On SQLite an ordinary write transaction (``BEGIN IMMEDIATE`` in
    the writers' queue), committed when the block ends."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            yield connection.execution_options(isolation_level="AUTOCOMMIT")
        return
    with engine.begin() as connection:
        yield connection


def read_sessions(factory: sessionmaker[Session]) -> sessionmaker[Session]:
    """A session factory like ``factory`` for units of work that only read, on its
    engine's :func:`reading_engine`."""
    return sessionmaker(reading_engine(factory.kw["bind"]), expire_on_commit=False)


def reading_engine(engine: Engine) -> Engine:
    """``engine`` for units of work that only read (an insert, update, delete or DDL
    statement of SQLAlchemy's is refused there: :class:`WriteInReadingSession`; the server
    runs no SQL text that writes).

    On SQLite its transactions start with a plain (deferred) BEGIN, so reading never waits
    for, nor holds up, a writer, and its statements read one snapshot. On PostgreSQL each
    statement is a transaction of its own (autocommit): no ``BEGIN`` and ``ROLLBACK`` round
    trips, no transaction held open while the unit of work decides and renders. At
    PostgreSQL's READ COMMITTED each statement read a snapshot of its own inside a
    transaction too; what a unit of work read is re-checked by its write, as before.
    """
    options: dict[str, Any] = {READ_ONLY: True}
    if engine.dialect.name == "postgresql":
        options["isolation_level"] = "AUTOCOMMIT"
    reading = engine.execution_options(**options)
    _refuse_writes(reading)
    return reading


class WriteInReadingSession(RuntimeError):
    """A statement that writes, run in a reading session (:func:`read_sessions`): on
    PostgreSQL it would be committed at once, on SQLite outside the writers' queue."""


def _refuse_writes(reading: Engine) -> None:
    """Refuse SQLAlchemy's writing statements on ``reading`` (a reading engine, an
    ``execution_options`` copy of an engine, whose listeners are its own: the statements
    of the engine's write transactions are not looked at)."""

    @event.listens_for(reading, "before_cursor_execute")
    def refuse(
        connection: Connection, cursor: Any, statement: str, parameters: Any,
        context: Any, executemany: bool,
    ) -> None:
        if context is not None and (
            context.isinsert or context.isupdate or context.isdelete or context.isddl
        ):
            raise WriteInReadingSession(statement.split(None, 1)[0])


def durable_writes(engine: Engine) -> Engine:
    """``engine`` for write transactions whose commit is on the disk when it returns, as a
    listener's 250 (an MTA's delivery by pipe, an IMAP mail's removal) promises that the
    mail is kept. On SQLite such a commit is synced (``synchronous = FULL``); the others
    commit at ``NORMAL``, which a crash of the process loses nothing of but one of the
    machine may (a worker's transaction lost so is done again: its mail is kept). On
    PostgreSQL such a transaction commits with ``synchronous_commit`` on; the others with
    it off, which a crash of a process of ours loses nothing of but one of the PostgreSQL
    server or of the machine may, the last fraction of a second of them (done again the
    same way). A durable commit puts every commit before it on the disk too."""
    return engine.execution_options(**{DURABLE: True})


def rowcount(result: Result[Any]) -> int:
    """Rows matched by an UPDATE or DELETE run through ``session.execute``."""
    return cast(CursorResult[Any], result).rowcount


def dispose_engines(keep: Collection[str] = ()) -> None:
    """Close every pooled connection and forget the process-wide engines (tests, shutdown),
    but for those of the database URLs in ``keep``: a database removed and made again under
    the same URL (as the tests do, one after another) is served by the engine that has
    already compiled its statements (the session factories are made again). The SQLite
    writers' queues are made again too: one a database file, as it is now (a connection
    still open on a file removed meanwhile keeps the queue of that file)."""
    kept = {normalise_url(url) for url in keep}
    with _lock:
        for url, engine in list(_engines.items()):
            engine.dispose()
            if url not in kept:
                del _engines[url]
        _sessionmakers.clear()
        _writer_queues.clear()


def alembic_config(config: Config | None = None, url: str | None = None) -> Any:
    """An Alembic ``Config`` for our migrations, bound to ``config``'s database (or ``url``)."""
    from alembic.config import Config as AlembicConfig

    ini = PROJECT_ROOT / "alembic.ini"
    # stdout given explicitly: Alembic's default is the sys.stdout of its import time.
    cfg = AlembicConfig(str(ini) if ini.exists() else None, stdout=sys.stdout)
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    # env.py reads the URL from here rather than from alembic.ini (no "%" escaping issues).
    if url is None and config is not None:
        url = config.effective_database_url
    if url is not None:
        cfg.attributes["database_url"] = normalise_url(url)
    return cfg


def upgrade_to_head(config: Config | None = None, url: str | None = None) -> None:
    """Migrate the database to the newest revision (what ``pbm-emergo db upgrade`` runs)."""
    from alembic import command

    command.upgrade(alembic_config(config, url), "head")


def downgrade_to(revision: str, config: Config | None = None, url: str | None = None) -> None:
    """Migrate the database down to ``revision`` (``"base"`` removes every table)."""
    from alembic import command

    command.downgrade(alembic_config(config, url), revision)


# The newest revision in migrations/, as ``alembic heads`` names it. A process that only
# checks that the database is migrated (each ``pbm-emergo deliver`` of a mail, each admin
# command, ``serve``) compares the database with it instead of loading Alembic and every
# migration script; tests/db/test_migrations.py keeps it equal to the scripts' head.
SCHEMA_HEAD = "0022_outbound_texts"


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (Alembic's version table), or None for an empty
    database."""
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return None
        revisions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    if len(revisions) > 1:  # branches Alembic would not upgrade as one
        raise RuntimeError(f"the database is at several revisions: {sorted(revisions)}")
    return str(revisions[0][0]) if revisions else None


def head_revision() -> str:
    """The newest revision in migrations/ (:data:`SCHEMA_HEAD`)."""
    return SCHEMA_HEAD


def migration_scripts_head() -> str | None:
    """The newest revision as Alembic finds it, reading every script in migrations/."""
    from alembic.script import ScriptDirectory

    head: str | None = ScriptDirectory.from_config(alembic_config()).get_current_head()
    return head
