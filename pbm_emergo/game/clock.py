"""The clocks of a board, on values: how long a player has been thinking (vacations taken
out), when their next reminder and their loss on time come, and those moments in the time
zone a player chose.

A player's clock runs while it is their turn and they are not on vacation. The scheduler
(reminders, forfeits, the total thinking time of ``--totaltime``: :mod:`pbm_emergo.app.timers`)
and the board mail count time the same way, with these functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from pbm_emergo.game.board import BLACK, WHITE, BoardState
from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules.reasons import Reason

# A vacation or other stop of the clock: from, to.
Period = tuple[datetime, datetime]

# The floors of a challenge's clock options (a challenge starts its game without the
# challenged player's consent): a reminder after a day at the soonest, a loss on time (by
# --forfeittime or --totaltime) after three days at the soonest; and the reminder comes
# before the forfeit time (--nagtime shorter than --forfeittime).
MIN_NAG_DAYS = 1
MIN_FORFEIT_DAYS = 3
# A game is lost on time only this long after a reminder of it was sent to the player, and
# only once such a reminder was sent in the player's turn (queued or held back is not sent).
REMINDER_NOTICE = timedelta(days=1)

# A time bank (-timebank=) holds from MIN_FORFEIT_DAYS (a game starts without the other
# player's consent: time to hear of it) to a year; its increment from none to all of it.
MIN_TIME_BANK_HOURS = MIN_FORFEIT_DAYS * 24
MAX_TIME_BANK_HOURS = 365 * 24

# The time zone of a player who chose none.
DEFAULT_TIMEZONE = "UTC"


def merged(periods: Iterable[Period]) -> list[Period]:
    """``periods`` as periods that do not overlap each other, in order (a vacation over a
    weekend stops the clock once)."""
    joined: list[Period] = []
    for first, last in sorted(periods):
        if joined and first <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], last))
        elif last > first:
            joined.append((first, last))
    return joined


def overlap(periods: Iterable[Period], start: datetime, end: datetime) -> timedelta:
    """How much of the time from ``start`` to ``end`` the ``periods`` cover (where two
    overlap, once)."""
    covered = timedelta()
    for first, last in merged(periods):
        low, high = max(first, start), min(last, end)
        if high > low:
            covered += high - low
    return covered


def running(start: datetime, end: datetime, periods: Iterable[Period]) -> timedelta:
    """The time from ``start`` to ``end`` on a clock that stops during ``periods``."""
    if end <= start:
        return timedelta()
    return max(end - start - overlap(periods, start, end), timedelta())


def clock_reaches(start: datetime, amount: timedelta, stops: Iterable[Period]) -> datetime:
    """When a clock that starts at ``start`` and stands during ``stops`` has run
    ``amount``."""
    moment = start
    for first, last in merged(stops):
        if last <= moment:
            continue
        if first > moment:
            if moment + amount <= first:
                return moment + amount
            amount -= first - moment
        moment = last
    return moment + amount


def _turns(
    created_at: datetime,
    moves: Sequence[tuple[int, datetime]],
    side_of: Callable[[int], str],
    periods: Mapping[str, Sequence[Period]],
    to_move: str | None,
    now: datetime | None,
) -> tuple[list[tuple[str, timedelta]], timedelta]:
    """Each move's side and thinking time, in order: from the move before it (or the board's
    creation), the side's stops (``periods``) left out; and the running turn's time up to
    ``now`` (none without ``to_move`` and ``now``)."""
    turns: list[tuple[str, timedelta]] = []
    previous = created_at
    for player_id, played_at in moves:
        side = side_of(player_id)
        turns.append((side, running(previous, played_at, periods.get(side, ()))))
        previous = max(previous, played_at)
    current = timedelta()
    if to_move is not None and now is not None:
        current = running(previous, now, periods.get(to_move, ()))
    return turns, current


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
    turns, current = _turns(created_at, moves, side_of, periods, to_move, now)
    for side, thought in turns:
        spent[side] += thought
    if to_move is not None:
        spent[to_move] += current
    return spent


def bank_left(
    created_at: datetime,
    moves: Sequence[tuple[int, datetime]],
    side_of: Callable[[int], str],
    periods: Mapping[str, Sequence[Period]],
    to_move: str | None,
    now: datetime | None,
    bank: TimeBank,
) -> dict[str, timedelta]:
    """What is left of each side's time bank: it starts full (``bank.cap``), each move's
    thinking time (as :func:`thinking_time` counts it) is taken from it, and each move adds
    ``bank.increment`` up to the cap; the running turn of ``to_move`` is taken up to
    ``now``. Below zero, the side ran out of time."""
    left = {WHITE: bank.cap, BLACK: bank.cap}
    turns, current = _turns(created_at, moves, side_of, periods, to_move, now)
    for side, thought in turns:
        left[side] = min(left[side] - thought + bank.increment, bank.cap)
    if to_move is not None:
        left[to_move] -= current
    return left


@dataclass(frozen=True)
class TimeLeft:
    """The clock of the player to move: ``waiting``, how long it ran since the last move
    (or the board's creation); ``left``, the time before they lose on time (at or below
    zero: they ran out), and ``why``: which limit is nearest, ``("idle", forfeit days)``,
    ``("total", days of thinking time)`` or ``("bank", 0)`` (on a tie the first of
    these)."""

    waiting: timedelta
    left: timedelta
    why: tuple[str, int]


def time_left(
    created_at: datetime,
    moves: Sequence[tuple[int, datetime]],
    side_of: Callable[[int], str],
    periods: Mapping[str, Sequence[Period]],
    to_move: str,
    last_move: datetime,
    now: datetime,
    forfeit_days: int,
    total_days: int | None,
    bank: TimeBank | None,
) -> TimeLeft:
    """How long ``to_move``'s clock ran in this turn and what is left of it before the
    nearest of the board's limits: ``forfeit_days`` without a move, the total thinking
    time (``total_days``: :func:`thinking_time`), the time bank (:func:`bank_left`).
    ``moves`` are (player id, played at) in order (needed only for a total thinking time or
    a time bank), ``last_move`` when the turn began; ``periods`` each side's stops."""
    waiting = running(last_move, now, periods.get(to_move, ()))
    left = timedelta(days=forfeit_days) - waiting
    why = ("idle", forfeit_days)
    if total_days is not None:
        used = thinking_time(created_at, moves, side_of, periods, to_move, now)[to_move]
        if timedelta(days=total_days) - used < left:
            left, why = timedelta(days=total_days) - used, ("total", total_days)
    if bank is not None:
        banked = bank_left(created_at, moves, side_of, periods, to_move, now, bank)[to_move]
        if banked < left:
            left, why = banked, ("bank", 0)
    return TimeLeft(waiting, left, why)


@dataclass(frozen=True)
class TimeBank:
    """A capped time bank (``-timebank=240h -increment=36h``): each player starts with
    ``cap``, and each move adds ``increment`` to what is left, up to ``cap``."""

    cap: timedelta
    increment: timedelta

    @classmethod
    def of(cls, cap_hours: int | None, increment_hours: int | None) -> TimeBank | None:
        """The time bank of a board's stored terms (None: the board has none)."""
        if cap_hours is None:
            return None
        return cls(timedelta(hours=cap_hours), timedelta(hours=increment_hours or 0))


def hours_of(value: str) -> int | None:
    """The hours of a clock option's value: ``240h``, ``10d`` or ``10`` (days); None when
    it is none of these."""
    number, unit = (value[:-1], value[-1]) if value[-1:] in ("h", "d") else (value, "d")
    if not (number.isascii() and number.isdigit() and len(number) <= 5):
        return None
    return int(number) * (1 if unit == "h" else 24)


def time_bank_fault(timebank_hours: int | None, increment_hours: int | None) -> Reason | None:
    """What is wrong with a time bank's terms, as a reason value (None: they hold); a
    challenge refuses it as the ``_no_board`` reason of the same code."""
    if increment_hours is not None and timebank_hours is None:
        return refusal("timebank_increment_alone")
    if timebank_hours is None:
        return None
    if not MIN_TIME_BANK_HOURS <= timebank_hours <= MAX_TIME_BANK_HOURS:
        return refusal(
            "timebank_range",
            hours=MIN_TIME_BANK_HOURS,
            days=MIN_FORFEIT_DAYS,
            most=MAX_TIME_BANK_HOURS // 24,
        )
    if (increment_hours or 0) > timebank_hours:
        return refusal("timebank_increment_over")
    return None


def weekends(timezone: str, start: datetime, end: datetime) -> list[Period]:
    """The weekends (Saturday 00:00 to Monday 00:00 in ``timezone``, the player's) that
    meet the time from ``start`` to ``end``: the clock of a board with ``-weekends`` stops
    during them."""
    if end <= start:
        return []
    zone = ZoneInfo(timezone_named(timezone) or DEFAULT_TIMEZONE)
    day = start.astimezone(zone).date()
    day -= timedelta(days=(day.weekday() - 5) % 7)  # the Saturday on or before it
    last = end.astimezone(zone).date()
    found: list[Period] = []
    while day <= last:
        saturday = datetime.combine(day, time(), zone)
        monday = datetime.combine(day + timedelta(days=2), time(), zone)
        first, until = saturday.astimezone(start.tzinfo), monday.astimezone(start.tzinfo)
        if until > start and first < end:
            found.append((first, until))
        day += timedelta(days=7)
    return found


def side_periods(state: BoardState, now: datetime | None = None) -> dict[str, list[Period]]:
    """The times each side's clock of ``state`` stands: the vacations its read found, and
    on a board with ``-weekends`` the weekends in the player's time zone up to ``now``."""
    periods: dict[str, list[Period]] = {WHITE: [], BLACK: []}
    for player_id, start, end in state.vacations:
        side = state.side_of(player_id)
        if side is not None:
            periods[side].append((start, end))
    if state.weekends_off and now is not None:
        for side in (WHITE, BLACK):
            periods[side] += weekends(state.seat(side).timezone, state.created_at, now)
    return periods


@dataclass(frozen=True)
class Deadlines:
    """What comes to the player to move if they do not move: the next reminder (None when
    the game is lost on time before another one is due) and the loss on time (no sooner:
    it waits for a reminder that reached them, :data:`REMINDER_NOTICE`)."""

    userid: str
    timezone: str
    reminder: datetime | None
    forfeit: datetime


def deadlines(state: BoardState, now: datetime) -> Deadlines | None:
    """When the reminder and the loss on time come on ``state`` as of ``now``, if the player
    to move does not move and takes no vacation (None: the game is over, or they are on
    vacation and their clock stands). The scheduler's rules (:mod:`pbm_emergo.app.timers`):
    a reminder every ``nag_days`` of their clock, and one a day before their time runs out
    if none came in this turn; lost on time when ``forfeit_days`` (or the total thinking
    time) ran out, but no sooner than a day after a reminder of this turn."""
    if not state.active or state.to_move is None:
        return None
    seat = state.seat(state.to_move)
    if seat.on_vacation(now):
        return None
    periods = side_periods(state, now)
    away = periods[state.to_move]
    last_move = state.moves[-1].played_at if state.moves else state.created_at
    moves = [(m.player_id, m.played_at) for m in state.moves]
    side_of: Callable[[int], str] = lambda pid: state.side_of(pid) or WHITE  # noqa: E731
    bank = TimeBank.of(state.timebank_hours, state.increment_hours)
    clock = time_left(
        state.created_at,
        moves,
        side_of,
        periods,
        state.to_move,
        last_move,
        now,
        state.forfeit_days,
        state.total_days,
        bank,
    )
    waiting, left = clock.waiting, clock.left
    reminded_at = state.last_reminder_at
    reminded = reminded_at is not None and reminded_at >= last_move
    since_reminder = running(max(reminded_at or state.created_at, last_move), now, away)
    nag = timedelta(days=state.nag_days)
    # The moments the clock reaches the nag time and the end of the time: later than the
    # clock time left on a board whose clock stops at weekends.
    ahead = (
        weekends(seat.timezone, now, now + 2 * max(left, nag) + timedelta(days=3))
        if state.weekends_off
        else []
    )
    nag_due = clock_reaches(now, max(nag - waiting, nag - since_reminder, timedelta()), ahead)
    forfeit = clock_reaches(now, max(left, timedelta()), ahead)
    reminder: datetime | None
    if reminded and reminded_at is not None:
        forfeit = max(forfeit, reminded_at + REMINDER_NOTICE)
        reminder = nag_due if nag_due < forfeit else None
    else:
        reminder = max(min(nag_due, forfeit - REMINDER_NOTICE), now)
        forfeit = max(forfeit, reminder + REMINDER_NOTICE)
    return Deadlines(seat.userid, seat.timezone, reminder, forfeit)


@cache
def _zone_names() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones()}


def timezone_named(text: str) -> str | None:
    """The IANA time zone ``text`` names (any letter case: ``europe/amsterdam``), spelled as
    the database spells it; None when there is no such zone."""
    if not text.isascii() or len(text) > 64:
        return None
    return _zone_names().get(text.lower())


def local_time(moment: datetime, timezone: str) -> str:
    """``moment`` as a player in ``timezone`` reads it: ``2026-12-01 14:00 CET
    (Europe/Amsterdam)``; in UTC ``2026-12-01 13:00 UTC``. An unknown zone (a name the
    time zone data no longer has) is read as UTC."""
    name = timezone_named(timezone) or DEFAULT_TIMEZONE
    local = moment.astimezone(ZoneInfo(name))
    shown = f"{local:%Y-%m-%d %H:%M} {local.tzname() or name}"
    return shown if name in ("UTC", local.tzname()) else f"{shown} ({name})"
