"""Accounts for the commands: userid rules, passwords (argon2id), lock-out, address notices.

Passwords are only ever compared with their argon2id hash; they are never logged, echoed or
stored in clear. Five wrong passwords for one userid within an hour lock that userid for
an hour; while it is locked no password is even checked.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from pbm_emergo.commands.api import Reply
from pbm_emergo.commands.base import CommandError, Context
from pbm_emergo.db import service
from pbm_emergo.db.models import LoginFailure, Player
from pbm_emergo.mail.parse import clean_address
from pbm_emergo.render import render

USERID_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{1,15}")
MIN_PASSWORD = 4
MAX_PASSWORD = 128
MAX_ADDRESSES = 5

MAX_FAILURES = 5
FAILURE_WINDOW = timedelta(hours=1)
LOCK_TIME = timedelta(hours=1)

# Words a userid may not be: command words, filter words and names that would confuse a
# reader of a board mail or a mail system.
RESERVED_USERIDS = frozenset(
    [
        "accept",
        "active",
        "address",
        "admin",
        "administrator",
        "all",
        "black",
        "board",
        "boards",
        "challenge",
        "change",
        "chat",
        "draw",
        "eks",
        "emergo",
        "end",
        "games",
        "help",
        "history",
        "inactive",
        "list",
        "mailer-daemon",
        "message",
        "move",
        "moves",
        "multiple",
        "next",
        "nobody",
        "none",
        "off",
        "ohs",
        "password",
        "postmaster",
        "preview",
        "propose",
        "queue",
        "ratings",
        "record",
        "reject",
        "resign",
        "root",
        "server",
        "show",
        "signoff",
        "signup",
        "standings",
        "subscribe",
        "undo",
        "unsubscribe",
        "unrated",
        "vacation",
        "white",
        "pbmserv",
    ]
)


def check_userid(userid: str) -> None:
    """Raise a CommandError unless ``userid`` may be chosen as a new userid."""
    if not USERID_PATTERN.fullmatch(userid):
        raise CommandError(
            f"The userid '{userid[:40]}' is not allowed: a userid has 2 to 16 characters "
            "(letters, digits, _ and -) and starts with a letter."
        )
    if userid.lower() in RESERVED_USERIDS:
        raise CommandError(f"The userid '{userid}' is a reserved word; please choose another.")


def check_password(password: str) -> None:
    """Raise a CommandError unless ``password`` is acceptable as a new password."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise CommandError(
            f"A password needs {MIN_PASSWORD} to {MAX_PASSWORD} characters (no spaces)."
        )


def check_addresses(addresses: list[str]) -> list[str]:
    """The addresses, checked and without duplicates (case-insensitively)."""
    if len(addresses) > MAX_ADDRESSES:
        raise CommandError(f"At most {MAX_ADDRESSES} addresses may be registered.")
    seen: dict[str, str] = {}
    for address in addresses:
        # The same test the mail layer applies to a recipient: no address we could never mail.
        if clean_address(address) != address.lower() or ".." in address:
            raise CommandError(f"'{address[:80]}' is not a mail address.")
        seen.setdefault(address.lower(), address)
    return list(seen.values())


def find_player(ctx: Context, userid: str) -> Player | None:
    """The player with this userid (any case), signed off or not."""
    return service.find_player(ctx.session, userid)


def require_player(ctx: Context, userid: str, *, board: int | None = None) -> Player:
    """The active player with this userid, or a CommandError."""
    player = find_player(ctx, userid)
    if player is None or not player.active:
        raise CommandError(f"There is no player '{userid[:40]}'.", board=board)
    return player


def is_registered(player: Player, address: str) -> bool:
    return address.lower() in {a.address_key for a in player.addresses}


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def authenticate(ctx: Context, userid: str, password: str, *, board: int | None = None) -> Player:
    """The player if ``password`` is theirs; otherwise a CommandError (and a failure counted).

    A right password from an address the player has not registered is accepted (as pbmserv
    does) and the registered addresses get a notice.
    """
    player = require_player(ctx, userid, board=board)
    failure = ctx.session.get(LoginFailure, player.id)
    if failure is not None and failure.locked_until is not None:
        if failure.locked_until > ctx.now:
            raise CommandError(
                f"The userid {player.userid} is locked until {_at(failure.locked_until)} after "
                f"{MAX_FAILURES} wrong passwords within an hour; nothing is done for it until "
                "then.",
                board=board,
            )
        ctx.session.delete(failure)
        ctx.session.flush()
        failure = None
    # verify_password also renews a hash made with outdated parameters.
    if not service.verify_password(player, password):
        raise _wrong_password(ctx, player, failure, board)
    if failure is not None:
        ctx.session.delete(failure)
    if not is_registered(player, ctx.sender):
        notify_foreign_address(ctx, player)
    return player


def _wrong_password(
    ctx: Context, player: Player, failure: LoginFailure | None, board: int | None
) -> CommandError:
    if failure is None or ctx.now - failure.window_start > FAILURE_WINDOW:
        if failure is None:
            failure = LoginFailure(player_id=player.id, count=0)
            ctx.session.add(failure)
        failure.count = 0
        failure.window_start = ctx.now
    failure.count += 1
    failure.last_failure_at = ctx.now
    ctx.session.flush()
    if failure.count < MAX_FAILURES:
        left = MAX_FAILURES - failure.count
        return CommandError(
            f"Wrong password for {player.userid}.",
            board=board,
            template="error/wrong_password.txt.j2",
            attempts_left=left,
            locked_until=None,
        )
    failure.locked_until = ctx.now + LOCK_TIME
    notices = [
        Reply(
            to=address.address,
            subject=f"Emergo notice: {player.userid} locked",
            body=render(
                "notice/locked.txt.j2",
                userid=player.userid,
                sender=ctx.sender,
                count=MAX_FAILURES,
                locked_until=_at(failure.locked_until),
            ),
        )
        for address in player.addresses
    ]
    return CommandError(
        f"Wrong password for {player.userid}.",
        board=board,
        template="error/wrong_password.txt.j2",
        attempts_left=0,
        locked_until=_at(failure.locked_until),
        replies=notices,
    )


def notify_foreign_address(ctx: Context, player: Player) -> None:
    """Tell the player's registered addresses that their password came from elsewhere."""
    key = player.userid_key
    if key in ctx.notified:
        return
    ctx.notified.add(key)
    body = render(
        "notice/foreign_address.txt.j2",
        userid=player.userid,
        sender=ctx.sender,
        command=ctx.masked_line,
        when=_at(ctx.now),
    )
    for address in player.addresses:
        ctx.notices.append(
            Reply(to=address.address, subject=f"Emergo notice: {player.userid}", body=body)
        )
