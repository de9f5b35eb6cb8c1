"""Timed work on active boards: reminders (nag time) and losses on time.

The server's scheduler runs :class:`Scheduler` every half minute (see ``pbm_emergo.ops.server``):
:func:`scheduled` decides on one read of the boards, and each board's reminder or loss on
time is stored in a short write transaction of its own.
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
(:data:`pbm_emergo.app.clock.REMINDER_NOTICE`). A player whose time ran out without one
gets one (again once a day while none could be delivered), so a flood of mail that holds
their mail back only postpones the loss.

A draw offer still open when a player would lose on time is accepted instead (as pbmserv
does), if the opponent made it: the player out of time is taken to accept it. Their own
offer, never answered, does not save them. A player on vacation (``vacation_until`` in the
future) gets no reminder and loses no game on time, and their clock stops: the time of a
vacation does not count, neither for reminders nor for losses on time
(:mod:`pbm_emergo.app.clock`). A player whose registered address is locked out by wrong
passwords (see :mod:`pbm_emergo.app.lockout`), or was within a day, loses no game on time
while they have vacation days left: each day it saves them is taken as a day of vacation.
A lock never stops the clock beyond the vacation allowance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from pbm_emergo.app import lockout
from pbm_emergo.app.boards import (
    board_html,
    board_link,
    board_mails,
    board_view,
    load_state,
    other_side,
    primary_address,
)
from pbm_emergo.app.clock import (
    REMINDER_NOTICE,
    TimeBank,
    bank_left,
    running,
    thinking_time,
    weekends,
)
from pbm_emergo.app.digests import send_digests
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.outbox import Outbox
from pbm_emergo.app.play import Turn
from pbm_emergo.app.runner import Runner, Work
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import games, vacations
from pbm_emergo.db.models import Board, Player, Vacation
from pbm_emergo.db.reads.reminders import reminder_delivery
from pbm_emergo.db.session import SessionFactory
from pbm_emergo.db.types import utcnow
from pbm_emergo.db.vacations import Period
from pbm_emergo.game.account_changes import (
    ExpiredConfirmationsDropped,
    VacationEndTold,
    VacationStarted,
)
from pbm_emergo.game.board_changes import ReminderSent
from pbm_emergo.rules import Termination
from pbm_emergo.views import i18n
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
    # Codes for addresses that nobody confirmed within their time are forgotten.
    work = [Work((ExpiredConfirmationsDropped(now),))]
    # Only the boards that may need a look, their players in the same query.
    boards = games.boards_to_check(session, now)
    clocks = _Clocks.read(session, boards)
    for board in boards:
        before = len(ctx.writes)
        replies = _check_board(ctx, board, clocks)
        changes = tuple(ctx.writes[before:])
        if changes or replies:
            work.append(Work(changes, tuple(replies), f"board {board.number}"))
    # The players whose vacation ran out are told.
    for vacation, player in vacations.ended_untold(session, now):
        work.append(
            Work(
                (VacationEndTold(vacation.id),),
                tuple(_vacation_over(ctx, vacation, player)),
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
    the vacations of their players to move, and the move times of the boards with a total
    thinking time."""

    def __init__(
        self, periods: dict[int, list[Period]], moves: dict[int, list[tuple[int, datetime]]]
    ) -> None:
        self.periods = periods
        self.moves = moves
        # The vacations this run took for players (their rows are not read again).
        self.on_vacation_until: dict[int, datetime] = {}

    @classmethod
    def read(cls, session: Session, boards: Sequence[Board]) -> _Clocks:
        if not boards:
            return cls({}, {})
        since = min(b.created_at for b in boards)
        ids = {b.white_player_id for b in boards} | {b.black_player_id for b in boards}
        periods = vacations.periods_of(session, ids, since)
        counted = [
            b.number for b in boards if b.total_days is not None or b.timebank_hours is not None
        ]
        return cls(periods, games.move_times(session, counted))

    def on_vacation(self, player: Player, now: datetime) -> bool:
        """Whether ``player`` is on vacation at ``now`` (one taken in this run counts)."""
        until = self.on_vacation_until.get(player.id, player.vacation_until)
        return until is not None and until > now

    def stops(self, board: Board, player: Player, now: datetime) -> list[Period]:
        """When ``player``'s clock on ``board`` stood: their vacations, and the weekends in
        their time zone on a board with ``-weekends``."""
        periods = list(self.periods.get(player.id, ()))
        if board.weekends_off:
            periods += weekends(player.timezone, board.created_at, now)
        return periods

    def waited(self, board: Board, player: Player, since: datetime, now: datetime) -> timedelta:
        """How long ``player``'s clock on ``board`` ran from ``since`` to ``now``."""
        return running(since, now, self.stops(board, player, now))

    def _side_stops(self, board: Board, now: datetime) -> dict[str, list[Period]]:
        return {
            "white": self.stops(board, board.white_player, now),
            "black": self.stops(board, board.black_player, now),
        }

    def thinking(self, board: Board, now: datetime) -> dict[str, timedelta]:
        """Each side's thinking time on a board with a total thinking time."""
        white = board.white_player_id
        return thinking_time(
            board.created_at,
            self.moves.get(board.number, []),
            lambda pid: "white" if pid == white else "black",
            self._side_stops(board, now),
            board.to_move,
            now,
        )

    def banked(self, board: Board, bank: TimeBank, now: datetime) -> dict[str, timedelta]:
        """What is left of each side's time bank on a board with one."""
        white = board.white_player_id
        return bank_left(
            board.created_at,
            self.moves.get(board.number, []),
            lambda pid: "white" if pid == white else "black",
            self._side_stops(board, now),
            board.to_move,
            now,
            bank,
        )


def _check_board(ctx: UnitOfWork, board: Board, clocks: _Clocks) -> list[Reply]:
    player = games.player_to_move(board)
    if player is None or clocks.on_vacation(player, ctx.now):
        return []
    last_move = board.last_move_at or board.created_at
    waiting = clocks.waited(board, player, last_move, ctx.now)
    left = timedelta(days=board.forfeit_days) - waiting
    why: OutOfTime = ("idle", board.forfeit_days)
    if board.total_days is not None and board.to_move is not None:
        used = clocks.thinking(board, ctx.now)[board.to_move]
        if timedelta(days=board.total_days) - used < left:
            left = timedelta(days=board.total_days) - used
            why = ("total", board.total_days)
    bank = TimeBank.of(board.timebank_hours, board.increment_hours)
    if bank is not None and board.to_move is not None:
        banked = clocks.banked(board, bank, ctx.now)[board.to_move]
        if banked < left:
            left = banked
            why = ("bank", 0)
    reminded = board.last_reminder_at is not None and board.last_reminder_at >= last_move
    if left <= timedelta():
        # Out of time, but lost only once a reminder reached the player in this turn and a
        # day has passed since; a reminder queued or held back by a limit has not reached
        # them, one that could not be delivered is sent again (once a day).
        delivery = reminder_delivery(
            ctx.session,
            board.number,
            [a.address for a in player.addresses],
            _reminder_subject(board, player),
            last_move,
        )
        if delivery.sent_at is not None and ctx.now - delivery.sent_at >= REMINDER_NOTICE:
            if lockout.locked_out(ctx.session, player, ctx.now):
                held = _hold_for_lock_out(ctx, board, player, clocks)
                if held is not None:
                    return held
            return _lose_on_time(ctx, board, player, why)
        if delivery.sent_at is not None or delivery.on_its_way:
            return []
        tried = board.last_reminder_at if reminded else None
        if tried is not None and ctx.now - tried < REMINDER_NOTICE:
            return []
        return _remind(ctx, board, player, waiting, left)
    since_reminder = clocks.waited(
        board, player, max(board.last_reminder_at or board.created_at, last_move), ctx.now
    )
    nag = timedelta(days=board.nag_days)
    # The reminders every nag time, and one a day before the time runs out in any case (a
    # total thinking time may run out before the nag time).
    if (waiting < nag or since_reminder < nag) and (reminded or left > REMINDER_NOTICE):
        return []
    return _remind(ctx, board, player, waiting, left)


def _reminder_subject(board: Board, player: Player) -> str:
    return f"Nag: Emergo Board {board.number} {player.userid}"


def _remind(
    ctx: UnitOfWork, board: Board, player: Player, waiting: timedelta, left: timedelta
) -> list[Reply]:
    """The reminder to the player to move (none without an address to send it to), its
    board as the player chose to see it (`board USERID PASSWORD list`)."""
    address = primary_address(player)
    if address is None:
        return []
    number, now = board.number, ctx.now
    ctx.write(
        ReminderSent(number, now, expected_ply=board.ply, expected_last=board.last_reminder_at)
    )
    # The board as after this reminder (its deadlines count from it).
    state = load_state(ctx.session, board).replace(last_reminder_at=now)
    # In the player's language: the scheduler answers nobody's mail.
    with speaking(player.language):
        view = board_view(
            state, link=board_link(ctx.config, number), now=ctx.now, style=player.board_style
        )
        # The game is lost no sooner than a day after this reminder is sent.
        left = max(left, REMINDER_NOTICE)
        words = dict(
            userid=player.userid,
            number=board.number,
            days=waiting.days,
            days_left=-(-left // timedelta(days=1)),  # whole days, rounded up
            weekends=board.weekends_off,
        )
        body = render("notice/reminder.txt.j2", **words, board_text=view.text)
        subject = _reminder_subject(board, player)
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
    ctx: UnitOfWork, board: Board, player: Player, clocks: _Clocks
) -> list[Reply] | None:
    """A player whose registered address is locked out (or was within a day) does not lose
    on time while they have vacation days left: a day of vacation is taken for them (their
    clocks stop, on every board) and they are told. None when no vacation is left: a lock
    never holds the clock back beyond the vacation allowance, or a losing player could
    lock themselves out once a day and never lose on time."""
    allowance, year, now = ctx.config.vacation_days, ctx.now.year, ctx.now
    left = allowance - vacations.days_taken(ctx.session, player.id, year)
    if left < 1:
        return None
    until = now + timedelta(days=1)
    ctx.write(VacationStarted(player.id, now, 1, player.vacation_until))
    clocks.on_vacation_until[player.id] = until
    address = primary_address(player)
    if address is None:
        return []
    with speaking(player.language):  # the scheduler answers nobody's mail
        body = render(
            "notice/lock_vacation.txt.j2",
            userid=player.userid,
            number=board.number,
            until=i18n.moment(until, "UTC"),
            left=left - 1,
            allowance=allowance,
            year=year,
        )
    subject = f"Emergo notice: board {board.number} not lost on time, {player.userid} on vacation"
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


def _lose_on_time(ctx: UnitOfWork, board: Board, player: Player, why: OutOfTime) -> list[Reply]:
    """The player to move runs out of time: they lose, unless their opponent's draw offer is
    open, which they are then taken to accept (as pbmserv does). Their own offer does not
    count: the opponent never agreed to a draw, and would win on time."""
    turn = Turn(ctx, board, player)
    offer = next(
        (v for v in turn.state.votes if v.kind == "draw" and v.player_id != player.id), None
    )
    if offer is not None:
        offered_by = (
            turn.state.white if offer.player_id == turn.state.white.id else (turn.state.black)
        )
        state = turn.finish(turn.state, None, Termination.DRAW_AGREED)
        return board_mails(
            ctx,
            state,
            headline=lambda: _out_of_time(why, player.userid, offered_by.userid),
        )
    state = turn.finish(turn.state, other_side(board.to_move or ""), Termination.FORFEIT)
    return board_mails(ctx, state, headline=lambda: _out_of_time(why, player.userid, None))


def _vacation_over(ctx: UnitOfWork, vacation: Vacation, player: Player) -> list[Reply]:
    """The mail that tells ``player`` their vacation ran out: their clocks run again (none
    when they are on a newer vacation already, or have no address)."""
    address = primary_address(player)
    if address is None or (player.vacation_until is not None and player.vacation_until > ctx.now):
        return []
    allowance, year = ctx.config.vacation_days, ctx.now.year
    left = max(allowance - vacations.days_taken(ctx.session, player.id, year), 0)
    with speaking(player.language):  # the scheduler answers nobody's mail
        body = render(
            "notice/vacation_over.txt.j2",
            userid=player.userid,
            ended=i18n.moment(vacation.ends_at, player.timezone),
            left=left,
            allowance=allowance,
            year=year,
        )
    subject = f"Emergo: the vacation of {player.userid} is over"
    return [Reply(to=address, subject=subject, body=body)]
