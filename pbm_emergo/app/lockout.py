"""Wrong passwords: slow down whoever guesses, never silence the player.

Failures are counted per userid *and* sender address:

* from one sender, the 5th wrong password for a userid within an hour locks that userid for
  that sender for an hour;
* the senders that are not registered addresses of the player are also counted together
  (with the mail that failed its domain's DMARC check, and the mail in the name of a
  registered address that nothing proves): their 20th wrong password within an hour locks
  the userid for all of them for an hour.

A registered address is locked only by its own mail *proven* by our MTA (DMARC, else SPF,
``pass``): mail that merely names it in its From may be forged, so its wrong passwords count
with the others' and lock nothing, and the player goes on playing from the address while
someone else guesses. The player is told once (a day at most) that their userid is under
attack; a player whose own registered address is locked loses no game on time while the
lock lasts, nor within a day after it, as long as they have vacation days left: each day it
saves them is taken as a day of vacation, so a lock never stops the clock beyond the
vacation allowance (see :mod:`pbm_emergo.app.timers`).

While a sender is locked, no password from it is even checked. Hashing a password (argon2)
is slow on purpose, so wrong ones are also capped before they are hashed: a few per mail,
and per address not registered for the player a few more per hour; past a cap only a
password the credential cache already knows as right is accepted
(:func:`checked_password`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Refused, Write
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import players
from pbm_emergo.db.players import LoginFailureRead
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.game.account_changes import AttackNoticeMarked, LoginFailuresCleared
from pbm_emergo.game.lockout import (
    FAILURE_WINDOW,
    MAX_FAILURES,
    MAX_OTHER_FAILURES,
    OTHER_SENDERS,
    FailureCount,
    count_wrong_password,
)
from pbm_emergo.views import i18n
from pbm_emergo.views.templating import render

if TYPE_CHECKING:
    from pbm_emergo.db.session import Session

# The player is told that their userid is under attack at most this often.
NOTICE_INTERVAL = timedelta(days=1)
# A game is not forfeited while its player is locked out, nor this long after the lock
# (out of the player's vacation allowance, see game.timers).
FORFEIT_GRACE = timedelta(days=1)


@dataclass(frozen=True)
class Sender:
    """How the sender of a command stands towards a player's lock-out."""

    # A registered address of the player, in mail proven to come from it: its own wrong
    # passwords may lock it, the others' never do.
    registered: bool
    keys: tuple[str, ...]  # the counts a wrong password from it goes to
    # The counts whose lock refuses it (none for an unproven registered address).
    locked_by: tuple[str, ...]
    # A registered address named by mail that nothing proves: it is never locked out.
    unproven: bool = False
    # Its wrong passwords are capped per hour by its address (see checked_password).
    capped_per_hour: bool = False


def sender_of(ctx: UnitOfWork, player: Account) -> Sender:
    address = ctx.sender.lower()
    registered = address in player.address_keys
    if ctx.sender_trusted and registered:
        if ctx.sender_proven:
            return Sender(True, (address,), (address,))
        # Anyone can write this From address: counted with the others so that the player
        # hears of it, but locked by nothing, or the player could be silenced by a forgery.
        return Sender(False, (OTHER_SENDERS,), (), unproven=True)
    if ctx.sender_trusted and address:
        keys = (address, OTHER_SENDERS)
        return Sender(False, keys, keys, capped_per_hour=True)
    # Mail that failed DMARC may carry anyone's address: it is counted with the others
    # only, so that it can lock neither the address it names nor be exempt as it.
    return Sender(False, (OTHER_SENDERS,), (OTHER_SENDERS,))


def _active_lock(row: LoginFailureRead | None, now: datetime) -> datetime | None:
    if row is None or row.locked_until is None or row.locked_until <= now:
        return None
    return row.locked_until


def check_not_locked(
    ctx: UnitOfWork, player: Account, rows: dict[str, LoginFailureRead], *, board: int | None
) -> None:
    """Raise a Refused if the userid is locked for this sender."""
    sender = sender_of(ctx, player)
    for key in sender.locked_by:
        until = _active_lock(rows.get(key), ctx.now)
        if until is None:
            continue
        if key != OTHER_SENDERS:
            raise Refused(
                i18n._(
                    "The userid %(userid)s is locked for mail from %(sender)s until %(until)s "
                    "after %(count)s wrong passwords from it within an hour; nothing is done "
                    "for it from this address until then.",
                    userid=player.userid,
                    sender=ctx.sender,
                    until=i18n.moment(until, "UTC"),
                    count=MAX_FAILURES,
                ),
                board=board,
            )
        words = dict(
            userid=player.userid, until=i18n.moment(until, "UTC"), count=MAX_OTHER_FAILURES
        )
        raise Refused(
            i18n._(
                "The userid %(userid)s is locked until %(until)s for mail from addresses not "
                "registered for it, after %(count)s wrong passwords from such addresses "
                "within an hour; its player can still use it from a registered address.",
                **words,
            )
            if ctx.sender_trusted
            else i18n._(
                "The userid %(userid)s is locked until %(until)s for mail from addresses not "
                "registered for it, after %(count)s wrong passwords from such addresses "
                "within an hour (your mail failed its domain's DMARC check, so it counts as "
                "mail from such an address); its player can still use it from a registered "
                "address.",
                **words,
            ),
            board=board,
        )


def checked_password(
    ctx: UnitOfWork, player: Account, password: str, *, board: int | None
) -> players.Verified:
    """``password`` checked against the player's stored hash, unless the mail or its sender
    has used up its wrong passwords: then a Refused, before anything is hashed (a password
    the credential cache knows as right still passes). A wrong one is counted for the mail
    here; the caller counts it for the lock-out (:func:`wrong_password`)."""
    if players.remembered(player.id, player.password_hash, password):
        return players.Verified(True)
    per_mail = ctx.config.password_failures_per_mail
    if ctx.password_failures >= per_mail:
        raise Refused(
            i18n.ngettext(
                "This mail already had %(num)s wrong password, so no further password in it is "
                "checked: nothing was done for %(userid)s. Check the passwords and send the "
                "commands again, in a new mail.",
                "This mail already had %(num)s wrong passwords, so no further password in it "
                "is checked: nothing was done for %(userid)s. Check the passwords and send the "
                "commands again, in a new mail.",
                per_mail,
                userid=player.userid,
            ),
            board=board,
        )
    sender = sender_of(ctx, player)
    per_hour = ctx.config.password_failures_per_hour
    if sender.capped_per_hour:
        count, latest = players.recent_failures_from(
            ctx.session, ctx.sender.lower(), ctx.now - FAILURE_WINDOW
        )
        if count >= per_hour and latest is not None:
            raise Refused(
                i18n._(
                    "Mail from %(sender)s had %(count)s wrong passwords within the last hour, "
                    "for userids it is not registered for, so no password from it is checked "
                    "for such a userid until %(until)s at the latest: nothing was done for "
                    "%(userid)s. A player's own registered address is not limited this way: "
                    "send the command from it.",
                    sender=ctx.sender,
                    count=count,
                    until=i18n.moment(latest + FAILURE_WINDOW, "UTC"),
                    userid=player.userid,
                ),
                board=board,
            )
    verified = players.check_password(player.id, player.password_hash, password)
    if not verified.ok:
        ctx.password_failures += 1
    return verified


def wrong_password(
    ctx: UnitOfWork, player: Account, rows: dict[str, LoginFailureRead], *, board: int | None
) -> Refused:
    """The error for a wrong password, carrying the writes that count it and the notices
    a new lock causes."""
    sender = sender_of(ctx, player)
    now, player_id = ctx.now, player.id
    counts = {
        key: FailureCount(row.count, row.window_start, row.locked_until)
        for key, row in rows.items()
    }
    counted = count_wrong_password(player_id, sender.keys, counts, now)
    writes: list[Write] = list(counted.changes)
    locked = counted.locked
    notices: list[Reply] = []
    # The notices are the account owner's mail: in their language, not the sender's.
    if locked and sender.registered:
        with i18n.speaking(player.language):
            notices = _to_player(
                player,
                f"Emergo notice: {player.userid} locked for {ctx.sender}",
                render(
                    "notice/locked.txt.j2",
                    userid=player.userid,
                    sender=ctx.sender,
                    count=MAX_FAILURES,
                    locked_until=i18n.moment(locked[0][1], "UTC"),
                ),
            )
    elif locked:
        other = rows.get(OTHER_SENDERS)
        told = None if other is None else other.notified_at
        if told is None or now - told >= NOTICE_INTERVAL:
            writes.append(AttackNoticeMarked(player_id, now, told))
            with i18n.speaking(player.language):
                notices = _to_player(
                    player,
                    f"Emergo notice: someone is guessing the password of {player.userid}",
                    render(
                        "notice/under_attack.txt.j2",
                        userid=player.userid,
                        sender=ctx.sender,
                        forged=not ctx.sender_trusted,
                        unproven=sender.unproven,
                        count=MAX_FAILURES,
                        locked_until=i18n.moment(max(until for _, until in locked), "UTC"),
                        registered=list(player.addresses),
                    ),
                )
    return Refused(
        i18n._("Wrong password for %(userid)s.", userid=player.userid),
        board=board,
        template="error/wrong_password.txt.j2",
        userid=player.userid,
        attempts_left=counted.attempts_left,
        locked_until=i18n.moment(max(until for _, until in locked), "UTC") if locked else None,
        registered=sender.registered,
        forged=not ctx.sender_trusted,
        unproven=sender.unproven,
        replies=notices,
        writes=writes,
    )


def _to_player(player: Account, subject: str, body: str) -> list[Reply]:
    return [Reply(to=address, subject=subject, body=body) for address in player.addresses]


def right_password(
    ctx: UnitOfWork, player: Account, rows: dict[str, LoginFailureRead]
) -> None:
    """A right password: forget this sender's own wrong ones (not those of the others
    together, which would hand a guesser a fresh allowance)."""
    keys = [k for k in sender_of(ctx, player).keys if k != OTHER_SENDERS and k in rows]
    if keys:
        ctx.write(LoginFailuresCleared(player.id, tuple(keys)))


def locked_out(session: Session, player: Account, now: datetime) -> bool:
    """Whether a registered address of the player is locked, or was within FORFEIT_GRACE
    (their games are not forfeited then)."""
    registered = player.address_keys
    return any(
        row.locked_until is not None and row.locked_until > now - FORFEIT_GRACE
        for key, row in players.login_failures_of(session, player.id).items()
        if key in registered
    )
