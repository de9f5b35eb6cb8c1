"""Wrong passwords: slow down whoever guesses, never silence the player.

Failures are counted per userid *and* sender address:

* from one sender, the 5th wrong password for a userid within an hour locks that userid for
  that sender for an hour;
* the senders that are not registered addresses of the player are also counted together
  (with the mail that failed its domain's DMARC check, whose address proves nothing): their
  20th wrong password within an hour locks the userid for all of them for an hour.

So a registered address of the player is never locked out by failures from elsewhere: the
player goes on playing from it while someone else guesses. The player is told once (a day
at most) that their userid is under attack; a player whose own registered address is
locked (their own typing, or mail forged in its name) loses no game on time while the lock
lasts, nor within a day after it (see :mod:`pbm_emergo.game.timers`).

While a sender is locked, no password from it is even checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbm_emergo.db import players
from pbm_emergo.db.models import OTHER_SENDERS, LoginFailure, Player
from pbm_emergo.game.messages import Reply
from pbm_emergo.game.results import Refused
from pbm_emergo.game.unit import UnitOfWork, Write
from pbm_emergo.views.templating import render

if TYPE_CHECKING:
    from pbm_emergo.db.session import Session

MAX_FAILURES = 5  # from one sender, within FAILURE_WINDOW
MAX_OTHER_FAILURES = 20  # from every unregistered sender together, within FAILURE_WINDOW
FAILURE_WINDOW = timedelta(hours=1)
LOCK_TIME = timedelta(hours=1)
# The player is told that their userid is under attack at most this often.
NOTICE_INTERVAL = timedelta(days=1)
# A game is not forfeited while its player is locked out, nor this long after the lock.
FORFEIT_GRACE = timedelta(days=1)
# Counts older than this (and not locked) are dropped when a new failure is counted.
KEEP_COUNTS = timedelta(days=1)


def at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True)
class Sender:
    """How the sender of a command stands towards a player's lock-out."""

    registered: bool  # a registered address of the player, and the mail not forged
    keys: tuple[str, ...]  # the counts a wrong password from it goes to


def sender_of(ctx: UnitOfWork, player: Player) -> Sender:
    address = ctx.sender.lower()
    if ctx.sender_trusted and address in {a.address_key for a in player.addresses}:
        return Sender(True, (address,))
    if ctx.sender_trusted and address:
        return Sender(False, (address, OTHER_SENDERS))
    # Mail that failed DMARC may carry anyone's address: it is counted with the others
    # only, so that it can lock neither the address it names nor be exempt as it.
    return Sender(False, (OTHER_SENDERS,))


def _limit(key: str) -> int:
    return MAX_OTHER_FAILURES if key == OTHER_SENDERS else MAX_FAILURES


def _active_lock(row: LoginFailure | None, now: datetime) -> datetime | None:
    if row is None or row.locked_until is None or row.locked_until <= now:
        return None
    return row.locked_until


def check_not_locked(
    ctx: UnitOfWork, player: Player, rows: dict[str, LoginFailure], *, board: int | None
) -> None:
    """Raise a Refused if the userid is locked for this sender."""
    sender = sender_of(ctx, player)
    for key in sender.keys:
        until = _active_lock(rows.get(key), ctx.now)
        if until is None:
            continue
        if key != OTHER_SENDERS:
            raise Refused(
                f"The userid {player.userid} is locked for mail from {ctx.sender} until "
                f"{at(until)} after {MAX_FAILURES} wrong passwords from it within an hour; "
                "nothing is done for it from this address until then.",
                board=board,
            )
        raise Refused(
            f"The userid {player.userid} is locked until {at(until)} for mail from addresses "
            f"not registered for it, after {MAX_OTHER_FAILURES} wrong passwords from such "
            f"addresses within an hour{_forged(ctx)}; its player can still use it from "
            "a registered address.",
            board=board,
        )


def _forged(ctx: UnitOfWork) -> str:
    if ctx.sender_trusted:
        return ""
    return (
        " (your mail failed its domain's DMARC check, so it counts as mail from such an "
        "address)"
    )


def wrong_password(
    ctx: UnitOfWork, player: Player, rows: dict[str, LoginFailure], *, board: int | None
) -> Refused:
    """The error for a wrong password, carrying the writes that count it and the notices
    a new lock causes."""
    sender = sender_of(ctx, player)
    now, player_id = ctx.now, player.id
    writes: list[Write] = []
    attempts_left = MAX_FAILURES
    locked: list[tuple[str, datetime]] = []
    for key in sender.keys:
        row = rows.get(key)
        previous = None if row is None else row.count
        count, window_start = 0, now
        # A lock that ran out, or a window older than an hour, starts the count again.
        running = row is not None and row.locked_until is None
        if row is not None and running and now - row.window_start <= FAILURE_WINDOW:
            count, window_start = row.count, row.window_start
        count += 1
        locked_until = now + LOCK_TIME if count >= _limit(key) else None
        attempts_left = min(attempts_left, _limit(key) - count)
        if locked_until is not None:
            locked.append((key, locked_until))
        writes.append(_record(player_id, key, previous, count, window_start, now, locked_until))
    writes.append(lambda s: players.forget_old_login_failures(s, player_id, now - KEEP_COUNTS))
    notices: list[Reply] = []
    if locked and sender.registered:
        notices = _to_player(
            player,
            f"Emergo notice: {player.userid} locked for {ctx.sender}",
            render(
                "notice/locked.txt.j2",
                userid=player.userid,
                sender=ctx.sender,
                count=MAX_FAILURES,
                locked_until=at(locked[0][1]),
            ),
        )
    elif locked:
        other = rows.get(OTHER_SENDERS)
        told = None if other is None else other.notified_at
        if told is None or now - told >= NOTICE_INTERVAL:
            writes.append(lambda s: players.mark_attack_notified(s, player_id, now, previous=told))
            notices = _to_player(
                player,
                f"Emergo notice: someone is guessing the password of {player.userid}",
                render(
                    "notice/under_attack.txt.j2",
                    userid=player.userid,
                    sender=ctx.sender,
                    forged=not ctx.sender_trusted,
                    count=MAX_FAILURES,
                    locked_until=at(max(until for _, until in locked)),
                    registered=[a.address for a in player.addresses],
                ),
            )
    return Refused(
        f"Wrong password for {player.userid}.",
        board=board,
        template="error/wrong_password.txt.j2",
        attempts_left=max(attempts_left, 0),
        locked_until=at(max(until for _, until in locked)) if locked else None,
        registered=sender.registered,
        forged=not ctx.sender_trusted,
        replies=notices,
        writes=writes,
    )


def _record(
    player_id: int,
    key: str,
    previous: int | None,
    count: int,
    window_start: datetime,
    now: datetime,
    locked_until: datetime | None,
) -> Write:
    def write(session: Session) -> None:
        players.record_login_failure(
            session, player_id, sender_key=key, previous=previous, count=count,
            window_start=window_start, now=now, locked_until=locked_until,
        )  # fmt: skip

    return write


def _to_player(player: Player, subject: str, body: str) -> list[Reply]:
    return [Reply(to=a.address, subject=subject, body=body) for a in player.addresses]


def right_password(ctx: UnitOfWork, player: Player, rows: dict[str, LoginFailure]) -> None:
    """A right password: forget this sender's own wrong ones (not those of the others
    together, which would hand a guesser a fresh allowance)."""
    keys = [k for k in sender_of(ctx, player).keys if k != OTHER_SENDERS and k in rows]
    if keys:
        player_id = player.id
        ctx.write(lambda s: players.clear_login_failures(s, player_id, keys))


def locked_out(session: Session, player: Player, now: datetime) -> bool:
    """Whether a registered address of the player is locked, or was within FORFEIT_GRACE
    (their games are not forfeited then)."""
    registered = {a.address_key for a in player.addresses}
    return any(
        row.locked_until is not None and row.locked_until > now - FORFEIT_GRACE
        for key, row in players.login_failures_of(session, player.id).items()
        if key in registered
    )
