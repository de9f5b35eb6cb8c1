"""Accounts: userid rules, passwords (argon2id), address notices.

Passwords are only ever compared with their argon2id hash; they are never logged, echoed or
stored in clear. Wrong passwords lock a userid for the sender that sent them, never for
the player's registered addresses (:mod:`pbm_emergo.game.lockout`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from datetime import datetime

from pbm_emergo.db import players
from pbm_emergo.db.models import Player
from pbm_emergo.game import lockout
from pbm_emergo.game.messages import Reply
from pbm_emergo.game.results import Refused
from pbm_emergo.game.unit import UnitOfWork
from pbm_emergo.views.templating import render

USERID_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{1,15}")
MIN_PASSWORD = 4
MAX_PASSWORD = 128

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
        "autoplay",
        "black",
        "board",
        "boards",
        "challenge",
        "change",
        "chat",
        "clear",
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
    """Raise a Refused unless ``userid`` may be chosen as a new userid."""
    if not USERID_PATTERN.fullmatch(userid):
        raise Refused(
            f"The userid '{userid[:40]}' is not allowed: a userid has 2 to 16 characters "
            "(letters, digits, _ and -) and starts with a letter."
        )
    if userid.lower() in RESERVED_USERIDS:
        raise Refused(f"The userid '{userid}' is a reserved word; please choose another.")


def check_password(password: str) -> None:
    """Raise a Refused unless ``password`` is acceptable as a new password."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Refused(
            f"A password needs {MIN_PASSWORD} to {MAX_PASSWORD} characters (no spaces)."
        )


def find_player(ctx: UnitOfWork, userid: str) -> Player | None:
    """The player with this userid (any case), signed off or not."""
    return players.find_player(ctx.session, userid)


def require_player(
    ctx: UnitOfWork, userid: str, *, board: int | None = None, known: Sequence[Player] = ()
) -> Player:
    """The active player with this userid, or a Refused. ``known``: players already
    read (a board's two players), looked at before the database."""
    key = players.userid_key(userid)
    player = next((p for p in known if p.userid_key == key), None) or find_player(ctx, userid)
    if player is None or not player.active:
        raise Refused(f"There is no player '{userid[:40]}'.", board=board)
    return player


def is_registered(player: Player, address: str) -> bool:
    return address.lower() in {a.address_key for a in player.addresses}


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def authenticate(
    ctx: UnitOfWork,
    userid: str,
    password: str,
    *,
    board: int | None = None,
    known: Sequence[Player] = (),
    no_failures: Collection[int] = (),
) -> Player:
    """The player if ``password`` is theirs; otherwise a Refused (and a failure counted,
    per userid and sender: see :mod:`pbm_emergo.game.lockout`). ``no_failures``: ids of
    players read to have no wrong passwords counted (their counts are not looked up).

    A right password from an address the player has not registered is accepted (as pbmserv
    does) and the registered addresses get a notice. The password is checked here, in the
    command's reading step (the credential cache makes a repeated check cheap); what it
    changes (the failure count, a renewed hash) is stored by the command's writes.
    """
    player = require_player(ctx, userid, board=board, known=known)
    failures = (
        {} if player.id in no_failures else players.login_failures_of(ctx.session, player.id)
    )
    lockout.check_not_locked(ctx, player, failures, board=board)
    verified = players.check_password(player.id, player.password_hash, password)
    if not verified.ok:
        raise lockout.wrong_password(ctx, player, failures, board=board)
    # A verified password is taken out of everything this mail leads to: its comment (the
    # lines holding it are left out) and every reply (see commands.masking).
    ctx.secrets.add_password(password)
    ctx.comment = ctx.secrets.scrub_comment(ctx.comment_written)
    player_id, stored_hash = player.id, player.password_hash
    if verified.new_hash is not None:
        new_hash = verified.new_hash
        ctx.write(
            lambda s: players.store_password_hash(s, player_id, new_hash, expected_hash=stored_hash)
        )
    lockout.right_password(ctx, player, failures)
    if not (ctx.sender_trusted and is_registered(player, ctx.sender)):
        notify_foreign_address(ctx, player)
    return player


def notify_foreign_address(ctx: UnitOfWork, player: Player) -> None:
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
