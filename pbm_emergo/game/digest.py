"""The daily digest (``notify digest``), on values: when a player's digest is due, and what
it says of each board waiting for their move.

A player with a digest hour gets at most one digest a day, at that hour of their time zone
(``timezone``): the scheduler sends it once the hour has come and none was sent since
(the moment it was last sent, or turned on, is kept). Changes on their boards that others
make (an opponent's move, a robot's) no longer bring a board mail each: the digest lists
every board waiting for them instead. Their own commands' answers, new boards, game-over
mails and reminders still come as they happen (a loss on time waits for a reminder that
reached the player).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from pbm_emergo.game.board import BoardState
from pbm_emergo.game.clock import DEFAULT_TIMEZONE, deadlines, local_time, timezone_named

# The hours a digest may come at (of the player's day).
DIGEST_HOURS = range(24)


def digest_slot(hour: int, timezone: str, now: datetime) -> datetime:
    """The last moment at or before ``now`` that was ``hour``:00 in ``timezone``."""
    zone = ZoneInfo(timezone_named(timezone) or DEFAULT_TIMEZONE)
    local = now.astimezone(zone)
    slot = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if slot > local:
        slot = (local - timedelta(days=1)).replace(hour=hour, minute=0, second=0, microsecond=0)
    return slot.astimezone(now.tzinfo)


def digest_due(hour: int, timezone: str, last_sent: datetime | None, now: datetime) -> bool:
    """Whether the digest of a player whose hour is ``hour`` is due at ``now``: the hour has
    come since it was last sent (or turned on) at ``last_sent``."""
    return last_sent is None or last_sent < digest_slot(hour, timezone, now)


@dataclass(frozen=True)
class WaitingBoard:
    """One board of a digest: waiting for ``userid``'s move."""

    number: int
    opponent: str
    side: str  # "Ohs (o)" or "Eks (x)": the player's side
    move: int  # the number of the move due
    time_left: str  # how long until the game is lost on time, in words
    deadlines: str  # when the reminder and the loss on time come, in the player's zone
    reply: str  # the command line to send, the password and the move left to fill in


def waiting_board(
    state: BoardState, userid: str, now: datetime, words: Callable[[timedelta], str]
) -> WaitingBoard:
    """``state``'s board as ``userid``'s digest lists it (``words``: a duration in words)."""
    assert state.to_move is not None
    seat = state.seat(state.to_move)
    opponent = state.opponent(seat.id)
    due = deadlines(state, now)
    if due is None:  # on vacation: the clock stands
        left, when = "the clock stands", f"{userid} is on vacation"
    else:
        left = words(due.forfeit - now)
        reminder = (
            f"a reminder at {local_time(due.reminder, due.timezone)}, "
            if due.reminder is not None
            else ""
        )
        when = f"{reminder}lost on time from {local_time(due.forfeit, due.timezone)}"
    return WaitingBoard(
        number=state.number,
        opponent=opponent.userid,
        side="Ohs (o)" if state.to_move == "white" else "Eks (x)",
        move=state.ply + 1,
        time_left=left,
        deadlines=when,
        reply=f"emergo move {state.number} {userid} PASSWORD MOVE",
    )
