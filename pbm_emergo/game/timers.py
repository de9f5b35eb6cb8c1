"""The scheduler's decisions on values: what is due on an active board as of ``now`` (a
reminder to the player to move, or their time ran out), what becomes of a time that ran
out (lost on time, an open draw offer accepted, a reminder sent again, held for a lock-out),
and whether a player is told that their vacation is over.

The shell (:mod:`pbm_emergo.app.timers`) reads the boards once into :class:`BoardClock`
values, asks these functions, renders what they report and writes the changes they return.
The rules they decide by:

* after ``nag_days`` of the clock of the player to move, a reminder, and another one every
  ``nag_days`` after that; and one a day before their time runs out, if none came in this
  turn;
* their time runs out after ``forfeit_days`` without a move, or when the total thinking
  time or the time bank is spent (:func:`pbm_emergo.game.clock.time_left`);
* no game is lost on time before a reminder of this turn reached the player and a day has
  passed since (:data:`~pbm_emergo.game.clock.REMINDER_NOTICE`): until then the reminder is
  sent again, once a day, while none could be delivered;
* a player on vacation gets no reminder and loses nothing on time; the time of their
  vacations (and, on a board with ``-weekends``, of the weekends in their time zone) does
  not count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm_emergo.game.account_changes import VacationStarted
from pbm_emergo.game.board import BLACK, WHITE, BoardState, Seat, other_side
from pbm_emergo.game.board_changes import ReminderSent
from pbm_emergo.game.clock import (
    REMINDER_NOTICE,
    Period,
    TimeBank,
    running,
    time_left,
    weekends,
)
from pbm_emergo.game.decision import Decision, finish
from pbm_emergo.rules import Termination


def on_vacation(vacation_until: datetime | None, now: datetime) -> bool:
    """Whether a player whose vacation lasts until ``vacation_until`` is away at ``now``."""
    return vacation_until is not None and vacation_until > now


@dataclass(frozen=True)
class BoardClock:
    """What the scheduler reads of one active board whose player to move is
    ``player_id`` (on the side ``to_move``): its terms, its times, the vacations of each
    side's player (white's, black's), their time zones, and the moves as (player id,
    played at) in order (read only for a board with a total thinking time or a time bank);
    ``vacation_until``: the vacation of the player to move as this run knows it;
    ``active``: the game is not over."""

    number: int
    ply: int
    to_move: str
    player_id: int
    white_id: int
    created_at: datetime
    last_move_at: datetime | None
    last_reminder_at: datetime | None
    vacation_until: datetime | None
    nag_days: int
    forfeit_days: int
    total_days: int | None = None
    timebank_hours: int | None = None
    increment_hours: int | None = None
    weekends_off: bool = False
    timezones: tuple[str, str] = ("UTC", "UTC")
    vacations: tuple[tuple[Period, ...], tuple[Period, ...]] = ((), ())
    moves: tuple[tuple[int, datetime], ...] = ()
    active: bool = True

    @property
    def last_move(self) -> datetime:
        """When the turn of the player to move began."""
        return self.last_move_at or self.created_at

    def side_of(self, player_id: int) -> str:
        return WHITE if player_id == self.white_id else BLACK

    def stops(self, now: datetime) -> dict[str, list[Period]]:
        """When each side's clock stood: its player's vacations, and on a board with
        ``-weekends`` the weekends in its player's time zone up to ``now``."""
        found: dict[str, list[Period]] = {}
        for side, zone, periods in zip((WHITE, BLACK), self.timezones, self.vacations, strict=True):
            found[side] = list(periods)
            if self.weekends_off:
                found[side] += weekends(zone, self.created_at, now)
        return found


@dataclass(frozen=True)
class ReminderDue:
    """A reminder is due to the player to move on board ``number``: their clock ran
    ``waiting`` in this turn and ``left`` remains before they lose on time (at least
    :data:`REMINDER_NOTICE`: the game is lost no sooner than a day after it is sent)."""

    number: int
    player_id: int
    waiting: timedelta
    left: timedelta
    ply: int
    last_reminder_at: datetime | None

    def change(self, now: datetime) -> ReminderSent:
        """The reminder stored as sent now: void if a move came meanwhile, or another run
        reminded first."""
        return ReminderSent(
            self.number, now, expected_ply=self.ply, expected_last=self.last_reminder_at
        )

    @property
    def days_left(self) -> int:
        """The whole days left, rounded up."""
        return -(-max(self.left, REMINDER_NOTICE) // timedelta(days=1))


@dataclass(frozen=True)
class TimeRanOut:
    """The time of the player to move on board ``number`` ran out (``why``: see
    :class:`~pbm_emergo.game.clock.TimeLeft`); what follows depends on whether a reminder
    of this turn (since ``last_move``) reached them: :func:`after_time_ran_out`."""

    number: int
    player_id: int
    why: tuple[str, int]
    last_move: datetime
    # The last reminder tried in this turn, if any.
    reminded_at: datetime | None
    reminder: ReminderDue


@dataclass(frozen=True)
class LossOnTimeDue:
    """The player to move on board ``number`` loses on time now (``why``), unless a lock-out
    holds it (:func:`lock_out_hold`)."""

    number: int
    player_id: int
    why: tuple[str, int]


def decide_clock(board: BoardClock, now: datetime) -> ReminderDue | TimeRanOut | None:
    """What is due on ``board`` at ``now``: a reminder, the time ran out, or nothing (the
    game is over, the player to move is on vacation, or neither is due yet)."""
    if not board.active or on_vacation(board.vacation_until, now):
        return None
    stops = board.stops(now)
    last_move = board.last_move
    clock = time_left(
        board.created_at,
        board.moves,
        board.side_of,
        stops,
        board.to_move,
        last_move,
        now,
        board.forfeit_days,
        board.total_days,
        TimeBank.of(board.timebank_hours, board.increment_hours),
    )
    reminder = ReminderDue(
        board.number,
        board.player_id,
        clock.waiting,
        clock.left,
        board.ply,
        board.last_reminder_at,
    )
    reminded = board.last_reminder_at is not None and board.last_reminder_at >= last_move
    if clock.left <= timedelta():
        reminded_at = board.last_reminder_at if reminded else None
        return TimeRanOut(
            board.number, board.player_id, clock.why, last_move, reminded_at, reminder
        )
    away = stops[board.to_move]
    since_reminder = running(max(board.last_reminder_at or board.created_at, last_move), now, away)
    nag = timedelta(days=board.nag_days)
    # The reminders every nag time, and one a day before the time runs out in any case (a
    # total thinking time may run out before the nag time).
    if (clock.waiting < nag or since_reminder < nag) and (reminded or clock.left > REMINDER_NOTICE):
        return None
    return reminder


def after_time_ran_out(
    out: TimeRanOut, sent_at: datetime | None, on_its_way: bool, now: datetime
) -> LossOnTimeDue | ReminderDue | None:
    """What follows a time that ran out, given what became of this turn's reminders
    (``sent_at``: when the last one was sent, None if none was; ``on_its_way``: one is
    queued or held back by a limit): lost on time a day after one was sent; nothing while
    one is on its way or before that day; else the reminder again, once a day."""
    if sent_at is not None and now - sent_at >= REMINDER_NOTICE:
        return LossOnTimeDue(out.number, out.player_id, out.why)
    if sent_at is not None or on_its_way:
        return None
    if out.reminded_at is not None and now - out.reminded_at < REMINDER_NOTICE:
        return None
    return out.reminder


@dataclass(frozen=True)
class LockOutHold:
    """A loss on time held off by a lock-out: a day of vacation taken for the player
    (``change``) until ``until``; ``left``: their vacation days left after it."""

    change: VacationStarted
    until: datetime
    left: int


def lock_out_hold(
    player_id: int,
    vacation_until: datetime | None,
    allowance: int,
    taken: int,
    now: datetime,
) -> LockOutHold | None:
    """A player locked out (or within a day) does not lose on time while they have vacation
    days left (``allowance`` less ``taken`` this year): a day of vacation is taken for them.
    None when none is left: a lock never holds the clock back beyond the allowance, or a
    losing player could lock themselves out once a day and never lose on time."""
    left = allowance - taken
    if left < 1:
        return None
    return LockOutHold(
        VacationStarted(player_id, now, 1, vacation_until), now + timedelta(days=1), left - 1
    )


def decide_loss_on_time(
    state: BoardState, player_id: int, now: datetime
) -> tuple[Decision, Seat | None]:
    """The player ``player_id`` to move on ``state`` runs out of time: they lose, unless
    their opponent's draw offer is open, which they are then taken to accept (as pbmserv
    does); then the seat that offered it comes back too. Their own offer does not count: the
    opponent never agreed to a draw, and would win on time."""
    offer = next((v for v in state.votes if v.kind == "draw" and v.player_id != player_id), None)
    if offer is not None:
        offered_by = state.white if offer.player_id == state.white.id else state.black
        return finish(state, None, Termination.DRAW_AGREED, now), offered_by
    return finish(state, other_side(state.to_move or ""), Termination.FORFEIT, now), None


def vacation_over_left(
    vacation_until: datetime | None, allowance: int, taken: int, now: datetime
) -> int | None:
    """The vacation days left to tell a player whose vacation ran out (None: they are on a
    newer vacation already, and are not told)."""
    if on_vacation(vacation_until, now):
        return None
    return max(allowance - taken, 0)
