"""Timed work on active boards: reminders (nag time) and losses on time.

The server's scheduler runs :class:`Scheduler` every half minute (see ``pbm_emergo.ops.server``):
:func:`scheduled` reads the boards once into values (:class:`~pbm_emergo.game.timers.BoardClock`),
the decisions are the pure core's (:mod:`pbm_emergo.game.timers`), and each board's
reminder or loss on time, rendered here, is stored in a short write transaction of its own.
A board's clock runs from its last move (or its creation) while a player is to move:

* after ``nag_days`` without a move, the player to move gets a reminder (Subject
  ``Nag: Emergo Board N userid``), and another one every ``nag_days`` after that; and one a
  day before their time runs out, if none came in this turn (a total thinking time may run
  out before the nag time);
* after ``forfeit_days`` without a move, the player to move loses the game ("forfeit"), and
  both players get the final board mail;
* on a board with a total thinking time (``--totaltime=DAYS``), a player whose thinking
  time over the game reaches it loses on time too;
* on a board with a time bank (``-timebank=``, ``-increment=``), a player whose bank is
  empty loses on time too (:func:`pbm_emergo.game.clock.bank_left`);
* on a board with ``-weekends``, Saturdays and Sundays in the player's time zone do not
  count, as a vacation does not;
* a player whose vacation ran out is told, once (``vacations.end_told``).

No game is lost on time without a reminder that reached the player: only once a reminder of
the board was sent to them in this turn (the outbox says ``sent``: queued, held back by a
reply limit, or failed is not enough), and a day after it was sent
(:data:`pbm_emergo.game.clock.REMINDER_NOTICE`). A player whose time ran out without one
gets one (again once a day while none could be delivered), so a flood of mail that holds
their mail back only postpones the loss.

A draw offer still open when a player would lose on time is accepted instead (as pbmserv
does), if the opponent made it: the player out of time is taken to accept it. Their own
offer, never answered, does not save them. A player on vacation (``vacation_until`` in the
future) gets no reminder and loses no game on time, and their clock stops: the time of a
vacation does not count, neither for reminders nor for losses on time
(:mod:`pbm_emergo.game.clock`). A player whose registered address is locked out by wrong
passwords (see :mod:`pbm_emergo.app.lockout`), or was within a day, loses no game on time
while they have vacation days left: each day it saves them is taken as a day of vacation.
A lock never stops the clock beyond the vacation allowance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from pbm_emergo.app import lockout
from pbm_emergo.app.boards import board_mails
from pbm_emergo.app.digests import send_digests
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.outbox import Outbox
from pbm_emergo.app.runner import Runner, Work
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import games, players, vacations
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.clocks import (
    EndedVacation,
    TimedBoard,
    boards_to_check,
    ended_untold,
    state_of,
)
from pbm_emergo.db.reads.reminders import reminder_delivery
from pbm_emergo.db.session import SessionFactory
from pbm_emergo.db.types import utcnow
from pbm_emergo.db.vacations import Period
from pbm_emergo.game.account_changes import ExpiredConfirmationsDropped, VacationEndTold
from pbm_emergo.game.board import Seat
from pbm_emergo.game.timers import (
    BoardClock,
    LossOnTimeDue,
    ReminderDue,
    TimeRanOut,
    after_time_ran_out,
    decide_clock,
    decide_loss_on_time,
    lock_out_hold,
    on_vacation,
    vacation_over_left,
)
from pbm_emergo.views import i18n
from pbm_emergo.views.board_mail import board_html, board_link, board_view
from pbm_emergo.views.i18n import speaking
from pbm_emergo.views.templating import render

if TYPE_CHECKING:
    from pbm_emergo.config import Config
    from pbm_emergo.db.session import Session


class ScheduledTask(Protocol):
    """Timed work (reminders, timeouts) as the server's scheduler runs it every 30 seconds:
    read in a reading session (no write lock), decided and rendered there, one
    :class:`~pbm_emergo.app.runner.Work` a board (:func:`scheduled`, or a test's); the
    :class:`Scheduler` stores each in a write transaction of its own."""

    def __call__(self, session: Session, config: Config, now: datetime) -> list[Work]: ...


def scheduled(session: Session, config: Config, now: datetime) -> list[Work]:
    """The reminders that are due and the losses on time of the boards whose time ran out,
    decided on what ``session`` reads and rendered: one :class:`Work` a board that needs
    one, each re-checking the move count it read (a move meanwhile voids it), the
    forgetting of expired address codes, and the daily digests due
    (:mod:`pbm_emergo.app.digests`)."""
    ctx = UnitOfWork(session=session, config=config, now=now)
    # Codes for addresses that nobody confirmed within their time are forgotten (looked for
    # first: a round with nothing to do takes no write lock).
    work = (
        [Work((ExpiredConfirmationsDropped(now),))]
        if players.any_expired_confirmation(session, now) else []
    )
    # Only the boards that may need a look, their players in the same statement.
    boards = boards_to_check(session, now)
    clocks = _Clocks.read(session, boards)
    for board in boards:
        before = len(ctx.writes)
        replies = _check_board(ctx, board, clocks)
        changes = tuple(ctx.writes[before:])
        if changes or replies:
            work.append(Work(changes, tuple(replies), f"board {board.number}"))
    # The players whose vacation ran out are told.
    for vacation in ended_untold(session, now):
        work.append(
            Work(
                (VacationEndTold(vacation.id),),
                tuple(_vacation_over(ctx, vacation)),
                f"vacation {vacation.id}",
            )
        )
    # The daily digests due (notify digest).
    before = len(ctx.writes)
    replies = send_digests(ctx)
    changes = tuple(ctx.writes[before:])
    if changes or replies:
        work.append(Work(changes, tuple(replies), "digests"))
    return work


scheduled_work: ScheduledTask = scheduled


class Scheduler(Runner):
    """The runner of the timed work (``pbm-emergo serve``'s scheduler thread calls
    :meth:`run_once`): one read of every board that may need a look (``scheduled``), then
    each board's work stored in one short write transaction of its own with its mails
    (:meth:`~pbm_emergo.app.runner.Runner.store`). A board whose work conflicts (a move
    came meanwhile) is left as it is: the next run, half a minute later, looks at it
    again."""

    def __init__(
        self,
        factory: SessionFactory,
        config: Config,
        *,
        scheduled: ScheduledTask | None = None,
        outbox: Outbox | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        super().__init__(factory, config, outbox=outbox, clock=clock)
        self.scheduled: ScheduledTask = scheduled_work if scheduled is None else scheduled

    def run_once(self) -> int:
        """Run the timed work due now; how many mails go out now."""
        now = self.clock()
        with self.reads() as session:
            works = self.scheduled(session, self.config, now)
        return sum(self.store(work, now).queued for work in works)


class _Clocks:
    """What the clocks of the boards looked at need, read in two queries for all of them:
    the vacations of their players, and the move times of the boards with a total thinking
    time or a time bank; :meth:`of` makes one board's :class:`BoardClock` of them."""

    def __init__(
        self, periods: dict[int, list[Period]], moves: dict[int, list[tuple[int, datetime]]]
    ) -> None:
        self.periods = periods
        self.moves = moves
        # The vacations this run took for players (their rows are not read again).
        self.on_vacation_until: dict[int, datetime] = {}

    @classmethod
    def read(cls, session: Session, boards: Sequence[TimedBoard]) -> _Clocks:
        if not boards:
            return cls({}, {})
        since = min(b.created_at for b in boards)
        ids = {b.white_id for b in boards} | {b.black_id for b in boards}
        periods = vacations.periods_of(session, ids, since)
        counted = [
            b.number for b in boards if b.total_days is not None or b.timebank_hours is not None
        ]
        return cls(periods, games.move_times(session, counted))

    def of(self, board: TimedBoard, player: Seat, side: str) -> BoardClock:
        """``board``'s clock as the decisions read it, ``player`` to move on ``side``."""
        white, black = board.seats
        return BoardClock(
            number=board.number,
            ply=board.ply,
            to_move=side,
            player_id=player.id,
            white_id=white.id,
            created_at=board.created_at,
            last_move_at=board.last_move_at,
            last_reminder_at=board.last_reminder_at,
            vacation_until=self.on_vacation_until.get(player.id, player.vacation_until),
            nag_days=board.nag_days,
            forfeit_days=board.forfeit_days,
            total_days=board.total_days,
            timebank_hours=board.timebank_hours,
            increment_hours=board.increment_hours,
            weekends_off=board.weekends_off,
            timezones=(white.timezone, black.timezone),
            vacations=(
                tuple(self.periods.get(white.id, ())),
                tuple(self.periods.get(black.id, ())),
            ),
            moves=tuple(self.moves.get(board.number, ())),
        )


def _check_board(ctx: UnitOfWork, board: TimedBoard, clocks: _Clocks) -> list[Reply]:
    if board.to_move is None:
        return []
    player, account = board.seat_of(board.to_move), board.account_of(board.to_move)
    found = decide_clock(clocks.of(board, player, board.to_move), ctx.now)
    due: LossOnTimeDue | ReminderDue | None = None if isinstance(found, TimeRanOut) else found
    if isinstance(found, TimeRanOut):
        # Out of time, but lost only once a reminder reached the player in this turn and a
        # day has passed since; a reminder queued or held back by a limit has not reached
        # them, one that could not be delivered is sent again (once a day).
        delivery = reminder_delivery(
            ctx.session,
            board.number,
            account.addresses,
            _reminder_subject(board, account),
            found.last_move,
        )
        due = after_time_ran_out(found, delivery.sent_at, delivery.on_its_way, ctx.now)
    if isinstance(due, LossOnTimeDue):
        if lockout.locked_out(ctx.session, account, ctx.now):
            held = _hold_for_lock_out(ctx, board, player, account, clocks)
            if held is not None:
                return held
        return _lose_on_time(ctx, board, account, due.why)
    if due is None:
        return []
    return _remind(ctx, board, player, account, due)


def _reminder_subject(board: TimedBoard, account: Account) -> str:
    return f"Nag: Emergo Board {board.number} {account.userid}"


def _remind(
    ctx: UnitOfWork, board: TimedBoard, player: Seat, account: Account, due: ReminderDue
) -> list[Reply]:
    """The reminder to the player to move (none without an address to send it to), its
    board as the player chose to see it (`board USERID PASSWORD list`)."""
    address = player.address
    if address is None:
        return []
    number, now = board.number, ctx.now
    ctx.write(due.change(now))
    # The board as after this reminder (its deadlines count from it).
    state = state_of(ctx.session, board).replace(last_reminder_at=now)
    # In the player's language: the scheduler answers nobody's mail.
    with speaking(player.language):
        view = board_view(
            state, link=board_link(ctx.config, number), now=ctx.now, style=player.board_style
        )
        words = dict(
            userid=account.userid,
            number=board.number,
            days=due.waiting.days,
            # The game is lost no sooner than a day after this reminder is sent.
            days_left=due.days_left,
            weekends=board.weekends_off,
        )
        body = render("notice/reminder.txt.j2", **words, board_text=view.text)
        subject = _reminder_subject(board, account)
        # The HTML part: the reminder's own words (the text without the board), then the board.
        notice = render("notice/reminder.txt.j2", **words, board_text="").splitlines()
    return [
        Reply(
            to=address,
            subject=subject,
            body=body,
            board=board.number,
            html=board_html(subject, [view.html], notice=[n for n in notice if n.strip()]),
        )
    ]


def _hold_for_lock_out(
    ctx: UnitOfWork, board: TimedBoard, player: Seat, account: Account, clocks: _Clocks
) -> list[Reply] | None:
    """A player whose registered address is locked out (or was within a day) does not lose
    on time while they have vacation days left: a day of vacation is taken for them (their
    clocks stop, on every board) and they are told. None when no vacation is left: a lock
    never holds the clock back beyond the vacation allowance, or a losing player could
    lock themselves out once a day and never lose on time."""
    allowance, year, now = ctx.config.vacation_days, ctx.now.year, ctx.now
    taken = vacations.days_taken(ctx.session, player.id, year)
    hold = lock_out_hold(player.id, player.vacation_until, allowance, taken, now)
    if hold is None:
        return None
    ctx.write(hold.change)
    clocks.on_vacation_until[player.id] = hold.until
    address = player.address
    if address is None:
        return []
    with speaking(player.language):  # the scheduler answers nobody's mail
        body = render(
            "notice/lock_vacation.txt.j2",
            userid=account.userid,
            number=board.number,
            until=i18n.moment(hold.until, "UTC"),
            left=hold.left,
            allowance=allowance,
            year=year,
        )
    subject = f"Emergo notice: board {board.number} not lost on time, {account.userid} on vacation"
    return [Reply(to=address, subject=subject, body=body, board=board.number)]


# Why the player to move ran out of time: ("idle", the forfeit days), ("total", the days of
# thinking time) or ("bank", 0).
OutOfTime = tuple[str, int]


def _out_of_time(why: OutOfTime, userid: str, offered_by: str | None) -> str:
    """The headline of a game lost on time (or drawn: ``offered_by``'s draw offer was open),
    in the current locale: one whole sentence for each reason."""
    kind, days = why
    if offered_by is None:
        if kind == "idle":
            return i18n._(
                "%(userid)s did not move for %(days)s days and loses the game on time.",
                userid=userid,
                days=days,
            )
        if kind == "total":
            return i18n.ngettext(
                "%(userid)s has used up the total thinking time of %(num)s day and loses "
                "the game on time.",
                "%(userid)s has used up the total thinking time of %(num)s days and loses "
                "the game on time.",
                days,
                userid=userid,
            )
        return i18n._(
            "%(userid)s has used up their time bank and loses the game on time.", userid=userid
        )
    if kind == "idle":
        return i18n._(
            "%(userid)s did not move for %(days)s days; %(offered_by)s's draw offer was still "
            "open, so it is accepted instead of a loss on time.",
            userid=userid,
            days=days,
            offered_by=offered_by,
        )
    if kind == "total":
        return i18n.ngettext(
            "%(userid)s has used up the total thinking time of %(num)s day; %(offered_by)s's "
            "draw offer was still open, so it is accepted instead of a loss on time.",
            "%(userid)s has used up the total thinking time of %(num)s days; "
            "%(offered_by)s's draw offer was still open, so it is accepted instead of a loss "
            "on time.",
            days,
            userid=userid,
            offered_by=offered_by,
        )
    return i18n._(
        "%(userid)s has used up their time bank; %(offered_by)s's draw offer was still open, "
        "so it is accepted instead of a loss on time.",
        userid=userid,
        offered_by=offered_by,
    )


def _lose_on_time(
    ctx: UnitOfWork, board: TimedBoard, player: Account, why: OutOfTime
) -> list[Reply]:
    """The player to move runs out of time: they lose, or take their opponent's open draw
    offer (:func:`~pbm_emergo.game.timers.decide_loss_on_time`); the final board mail says
    which, in each reader's language."""
    state = state_of(ctx.session, board)
    decision, offered_by = decide_loss_on_time(state, player.id, ctx.now)
    for change in decision.changes:
        ctx.write(change)
    by = None if offered_by is None else offered_by.userid
    return board_mails(
        ctx, decision.state_after, headline=lambda: _out_of_time(why, player.userid, by)
    )


def _vacation_over(ctx: UnitOfWork, vacation: EndedVacation) -> list[Reply]:
    """The mail that tells the player of ``vacation`` it ran out: their clocks run again
    (none when they are on a newer vacation already, or have no address)."""
    address = vacation.address
    if address is None or on_vacation(vacation.vacation_until, ctx.now):
        return []
    allowance, year = ctx.config.vacation_days, ctx.now.year
    taken = vacations.days_taken(ctx.session, vacation.player_id, year)
    left = vacation_over_left(vacation.vacation_until, allowance, taken, ctx.now)
    if left is None:
        return []
    with speaking(vacation.language):  # the scheduler answers nobody's mail
        body = render(
            "notice/vacation_over.txt.j2",
            userid=vacation.userid,
            ended=i18n.moment(vacation.ends_at, vacation.timezone),
            left=left,
            allowance=allowance,
            year=year,
        )
    subject = f"Emergo: the vacation of {vacation.userid} is over"
    return [Reply(to=address, subject=subject, body=body)]
