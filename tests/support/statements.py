"""The SQL statements a piece of code runs, recorded from the engine's cursor events: what
the tests of one-statement reads count."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, event


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
