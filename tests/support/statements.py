"""The SQL statements a piece of code runs, recorded from the engine's cursor events: what
the tests of one-statement reads count."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, event

from pbm_emergo.db.session import READ_ONLY


@contextmanager
def recorded_statements(engine: Engine, *, selects: bool = False) -> Iterator[list[str]]:
    """The statements run on ``engine`` meanwhile, in order, as sent (``selects``: only
    the SELECT statements, their whitespace folded)."""
    seen: list[str] = []

    def record(conn: object, cursor: object, statement: str, *args: object) -> None:
        if not selects:
            seen.append(statement)
        elif statement.lstrip().upper().startswith("SELECT"):
            seen.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


@contextmanager
def write_transactions(engine: Engine) -> Iterator[list[str]]:
    """A name for each transaction begun on ``engine`` meanwhile that may write (not a
    reading unit of work's: :func:`pbm_emergo.db.session.read_sessions`), in order."""
    begun: list[str] = []

    def record(conn: Connection) -> None:
        if not conn.get_execution_options().get(READ_ONLY):
            begun.append(f"write transaction {len(begun) + 1}")

    event.listen(engine, "begin", record)
    try:
        yield begun
    finally:
        event.remove(engine, "begin", record)
