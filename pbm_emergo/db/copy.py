"""From SQLite to PostgreSQL: every table of the server's database copied into an empty,
migrated PostgreSQL database (``pbm-emergo admin copy-to``).

The source is read in one read transaction: a WAL snapshot of SQLite, so the copy is the
database as it was at one moment even while a server goes on writing (what it writes after
that moment is not in the copy; docs/operations.md says to stop the server first). The
target is written in one transaction, which also checks that the target is empty and
migrated to the same revision, and verifies, before it commits, that every table holds as
many rows as the source and the same rows: a checksum per table over the rows as both
databases give them back, independent of their order (the two databases sort text
differently). Last, PostgreSQL's sequences are set past the copied ids, so that the next
board, player or mail gets a new one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, func, inspect, select, text
from sqlalchemy.engine import make_url

from pbm_emergo.db.models import BOARD_COUNTER, FIRST_BOARD_NUMBER, Base, Counter, Player
from pbm_emergo.db.session import (
    create_engine_for,
    durable_writes,
    head_revision,
    reading_engine,
)
from pbm_emergo.robot import ROBOTS

BATCH_ROWS = 1000  # rows to one INSERT
CHECKSUM_MODULUS = 2**256
# What a freshly migrated database already holds (the migrations put it there): the board
# counter at its start, and the robots' accounts.
SEEDED_TABLES = (Counter.__tablename__, Player.__tablename__)
VERSION_TABLE = "alembic_version"


class CopyError(Exception):
    """The copy cannot be made (nothing was written): what is wrong and what to do."""


@dataclass(frozen=True)
class TableCopied:
    """One table as copied and verified: its rows and their checksum (hex)."""

    name: str
    rows: int
    checksum: str


@dataclass(frozen=True)
class CopyReport:
    """What ``copy_database`` did: the tables in the order copied, the revision of both."""

    tables: tuple[TableCopied, ...]
    revision: str
    target: str  # the target's URL without its password


def _canonical(value: Any) -> str:
    """One column's value as text that is the same whichever database gave it back."""
    if isinstance(value, bytes | memoryview):
        return "b:" + hashlib.sha256(bytes(value)).hexdigest()
    if isinstance(value, dict | list):
        return "j:" + json.dumps(value, sort_keys=True, separators=(",", ":"))
    if isinstance(value, datetime):
        return "t:" + value.isoformat()
    return f"{type(value).__name__}:{value!r}"


def row_digest(row: Sequence[Any]) -> int:
    """A row's SHA-256 as a number (the table's checksum is their sum: no order)."""
    digest = hashlib.sha256("\x1f".join(_canonical(v) for v in row).encode()).digest()
    return int.from_bytes(digest, "big")


class TableSum:
    """The count and the order-independent checksum of a table's rows."""

    def __init__(self) -> None:
        self.rows = 0
        self.total = 0

    def add(self, row: Sequence[Any]) -> None:
        self.rows += 1
        self.total = (self.total + row_digest(row)) % CHECKSUM_MODULUS

    @property
    def checksum(self) -> str:
        return f"{self.total:064x}"


def table_sum(conn: Connection, table: Table) -> TableSum:
    """Count and checksum ``table`` as ``conn`` reads it."""
    result = TableSum()
    for row in conn.execute(select(*table.columns)).yield_per(BATCH_ROWS):
        result.add(tuple(row))
    return result


def safe_url(url: str) -> str:
    """``url`` with its password hidden, for printing."""
    return make_url(url).render_as_string(hide_password=True)


def _tables() -> list[Table]:
    return list(Base.metadata.sorted_tables)  # parents before children


def _revision(conn: Connection) -> str | None:
    if not inspect(conn).has_table(VERSION_TABLE):
        return None
    found = conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()
    return None if found is None else str(found)


def _check_revisions(source: Connection, target: Connection) -> str:
    head = head_revision()
    found = _revision(source)
    if found != head:
        raise CopyError(
            f"the source database is at revision {found or 'none'}, the code at {head}: "
            "run `pbm-emergo db upgrade` on it first"
        )
    found = _revision(target)
    if found != head:
        raise CopyError(
            f"the target database is at revision {found or 'none'}, not {head}: migrate it "
            "first with `pbm-emergo db upgrade --database-url TARGET`"
        )
    assert head is not None
    return head


def _check_tables(source: Connection) -> None:
    known = {table.name for table in _tables()} | {VERSION_TABLE}
    unknown = sorted(set(inspect(source).get_table_names()) - known)
    if unknown:
        raise CopyError(
            f"the source database has tables this version does not know ({', '.join(unknown)}): "
            "nothing was copied"
        )


def _check_empty(target: Connection) -> None:
    """Refuse a target that holds anything beyond what the migrations put in it."""
    holding = []
    for table in _tables():
        if table.name in SEEDED_TABLES:
            continue
        if target.execute(select(func.count()).select_from(table)).scalar():
            holding.append(table.name)
    players = Base.metadata.tables[Player.__tablename__]
    others = target.execute(
        select(func.count()).select_from(players).where(players.c.userid_key.not_in(ROBOTS))
    ).scalar()
    if others:
        holding.append(players.name)
    counters = Base.metadata.tables[Counter.__tablename__]
    moved = target.execute(
        select(func.count())
        .select_from(counters)
        .where((counters.c.name != BOARD_COUNTER) | (counters.c.value != FIRST_BOARD_NUMBER - 1))
    ).scalar()
    if moved:
        holding.append(counters.name)
    if holding:
        raise CopyError(
            f"the target database is not empty ({', '.join(sorted(holding))} hold rows): "
            "copy into a new database made with `createdb` and migrated with "
            "`pbm-emergo db upgrade --database-url TARGET`"
        )


def _batches(rows: Iterable[Any]) -> Iterable[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(dict(row))
        if len(batch) == BATCH_ROWS:
            yield batch
            batch = []
    if batch:
        yield batch


def _copy_table(source: Connection, target: Connection, table: Table) -> TableSum:
    read = TableSum()

    def rows() -> Iterable[Any]:
        for row in source.execute(select(*table.columns)).yield_per(BATCH_ROWS):
            read.add(tuple(row))
            yield row._mapping

    for batch in _batches(rows()):
        target.execute(table.insert(), batch)
    return read


def _reset_sequences(target: Connection) -> None:
    """Each serial id's sequence set to the largest copied id (the next one follows it)."""
    for table in _tables():
        column = table.autoincrement_column
        if column is None:
            continue
        target.execute(
            text(
                f"SELECT setval(pg_get_serial_sequence('{table.name}', '{column.name}'), "
                f"COALESCE((SELECT MAX({column.name}) FROM {table.name}), 0) + 1, false)"
            )
        )


def copy_database(source_url: str, target_url: str) -> CopyReport:
    """Copy every table of the SQLite database at ``source_url`` into the empty, migrated
    PostgreSQL database at ``target_url``, verified per table (see the module docstring).
    Raises :class:`CopyError` when it cannot; then the target is left as it was."""
    if make_url(source_url).get_backend_name() != "sqlite":
        raise CopyError(f"the server's database is {safe_url(source_url)}, not SQLite")
    if make_url(target_url).get_backend_name() != "postgresql":
        raise CopyError(
            f"{safe_url(target_url)} is not a PostgreSQL database URL "
            "(postgresql+psycopg://USER@HOST/DATABASE)"
        )
    source_engine = create_engine_for(source_url)
    target_engine = create_engine_for(target_url)
    try:
        with (
            reading_engine(source_engine).connect() as source,
            durable_writes(target_engine).connect() as target,  # said copied: on the disk
            source.begin(),
            target.begin(),
        ):
            revision = _check_revisions(source, target)
            _check_tables(source)
            _check_empty(target)
            for table in reversed(_tables()):
                if table.name in SEEDED_TABLES:
                    target.execute(table.delete())
            copied: list[TableCopied] = []
            for table in _tables():
                read = _copy_table(source, target, table)
                written = table_sum(target, table)
                if (written.rows, written.total) != (read.rows, read.total):
                    raise CopyError(
                        f"table {table.name}: {read.rows} rows read (checksum "
                        f"{read.checksum[:12]}), the target gives back {written.rows} "
                        f"(checksum {written.checksum[:12]}); nothing was copied"
                    )
                copied.append(TableCopied(table.name, read.rows, read.checksum))
            _reset_sequences(target)
    finally:
        source_engine.dispose()
        target_engine.dispose()
    return CopyReport(tuple(copied), revision, safe_url(target_url))


__all__ = [
    "CopyError",
    "CopyReport",
    "TableCopied",
    "copy_database",
    "row_digest",
    "safe_url",
    "table_sum",
]
