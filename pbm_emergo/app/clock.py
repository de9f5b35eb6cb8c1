"""The clocks of a board: how long a player has been thinking, with vacations taken out.

A player's clock runs while it is their turn and they are not on vacation. The scheduler
(reminders, forfeits, the total thinking time of ``--totaltime``) and the board mail count
time the same way, with these functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from pbm_emergo.db.models import BLACK, WHITE
from pbm_emergo.db.vacations import Period

# The floors of a challenge's clock options (a challenge starts its game without the
# challenged player's consent): a reminder after a day at the soonest, a loss on time (by
# --forfeittime or --totaltime) after three days at the soonest; and the reminder comes
# before the forfeit time (--nagtime shorter than --forfeittime).
MIN_NAG_DAYS = 1
MIN_FORFEIT_DAYS = 3
# A game is lost on time only this long after a reminder of it was sent to the player, and
# only once such a reminder was sent in the player's turn (queued or held back is not sent).
REMINDER_NOTICE = timedelta(days=1)


def overlap(periods: Iterable[Period], start: datetime, end: datetime) -> timedelta:
    """How much of the time from ``start`` to ``end`` the ``periods`` cover (they do not
    overlap each other: a new vacation ends the current one)."""
    covered = timedelta()
    for first, last in periods:
        low, high = max(first, start), min(last, end)
        if high > low:
            covered += high - low
    return covered


def running(start: datetime, end: datetime, periods: Iterable[Period]) -> timedelta:
    """The time from ``start`` to ``end`` on a clock that stops during ``periods``."""
    if end <= start:
        return timedelta()
    return max(end - start - overlap(periods, start, end), timedelta())


def thinking_time(
    created_at: datetime,
    moves: Sequence[tuple[int, datetime]],
    side_of: Callable[[int], str],
    periods: Mapping[str, Sequence[Period]],
    to_move: str | None,
    now: datetime | None,
) -> dict[str, timedelta]:
    """Each side's thinking time on a board: from each move (or the board's creation) to the
    next, for the side that made the next one, and the running turn up to ``now`` for
    ``to_move``; the side's vacations (``periods``) do not count. ``moves`` are
    (player id, played at) in order."""
    spent = {WHITE: timedelta(), BLACK: timedelta()}
    previous = created_at
    for player_id, played_at in moves:
        side = side_of(player_id)
        spent[side] += running(previous, played_at, periods.get(side, ()))
        previous = max(previous, played_at)
    if to_move is not None and now is not None:
        spent[to_move] += running(previous, now, periods.get(to_move, ()))
    return spent
