"""The verification of ``admin copy-to`` (pbm_emergo/db/copy.py) on values: a table's
checksum is the same whatever order its rows come in, and differs for any changed value."""

from __future__ import annotations

from datetime import UTC, datetime

from pbm_emergo.db.copy import TableSum

ROWS = [
    (1, "alice", datetime(2026, 11, 21, 10, 0, tzinfo=UTC), b"raw mail", {"a": 1, "b": [2]}),
    (2, "bob", None, b"", {"b": [2], "a": 1}),
    (3, "Émile", datetime(2026, 11, 21, 10, 0, 0, 1, tzinfo=UTC), b"\x00", None),
]


def _sum(rows: list[tuple[object, ...]]) -> TableSum:
    total = TableSum()
    for row in rows:
        total.add(row)
    return total


def test_the_checksum_does_not_depend_on_the_order_of_the_rows() -> None:
    forward, backward = _sum(ROWS), _sum(ROWS[::-1])
    assert (
        (forward.rows, forward.checksum)
        == (backward.rows, backward.checksum)
        == (3, forward.checksum)
    )


def test_any_changed_value_changes_the_checksum() -> None:
    checksum = _sum(ROWS).checksum
    changed = [
        [(1, "alice", ROWS[0][2], b"raw mail!", ROWS[0][4]), *ROWS[1:]],
        [ROWS[0], (2, "bob", None, b"", {"b": [2], "a": 2}), ROWS[2]],
        [*ROWS[:2], (3, "Émile", datetime(2026, 11, 21, 10, 0, tzinfo=UTC), b"\x00", None)],
        [*ROWS[:2], (3, "emile", ROWS[2][2], b"\x00", None)],
        [ROWS[0], (2, "bob", None, None, {"b": [2], "a": 1}), ROWS[2]],  # "" is not NULL
        ROWS[:2],
    ]
    for rows in changed:
        assert _sum(rows).checksum != checksum, rows
