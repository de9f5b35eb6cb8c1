"""The vacation allowance on values: the days a vacation counts, and the days left.

Each calendar year allows a number of vacation days, counted in the year a vacation
starts; a vacation ended early counts only the days it began.
"""

from __future__ import annotations

from datetime import datetime, timedelta


def days_begun(start: datetime, end: datetime) -> int:
    """The days of a vacation from ``start`` to ``end`` that began (at least one)."""
    return max(1, -(-(end - start) // timedelta(days=1)))


def days_left(
    allowance: int, taken: int, now: datetime, current: tuple[datetime, int] | None = None
) -> int:
    """The vacation days left in ``now``'s year: ``allowance`` less the days ``taken``
    (by the vacations that start in the year), the current vacation (its start and its
    days, if any) counted as if it ended now, since a new vacation replaces it."""
    if current is not None:
        start, days = current
        if start.year == now.year:
            taken -= days - days_begun(start, now)
    return max(allowance - taken, 0)
