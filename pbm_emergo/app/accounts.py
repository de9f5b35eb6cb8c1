"""Accounts: userid rules, passwords (argon2id), address notices.

Passwords are only ever compared with their argon2id hash; they are never logged, echoed or
stored in clear. Wrong passwords lock a userid for the sender that sent them, never for
the player's registered addresses (:mod:`pbm_emergo.app.lockout`).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence
from datetime import datetime

from pbm_emergo.app import lockout
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Refused
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import players
from pbm_emergo.db.reads.accounts import Account, read_account
from pbm_emergo.db.reads.snapshot import PlayerRead, read_player
from pbm_emergo.game.account_changes import PasswordHashStored
from pbm_emergo.game.accounts import password_fault, userid_fault
from pbm_emergo.robot import ROBOTS
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render


def check_userid(userid: str) -> None:
    """Raise a Refused unless ``userid`` may be chosen as a new userid
    (:func:`~pbm_emergo.game.accounts.userid_fault`)."""
    fault = userid_fault(userid)
    if fault is not None:
        raise Refused(said(fault))


def check_not_lookalike(ctx: UnitOfWork, userid: str) -> None:
    """Raise a Refused if ``userid`` reads like an existing userid: the same but for letter
    case, the separators _ - ., or 0 for O and 1 for l or I (``Bob_``, ``b0b`` next to
    ``bob``), so that nobody can pass for another player in a board mail or the standings."""
    existing = players.lookalike_userid(ctx.session, userid)
    if existing is not None:
        raise Refused(
            i18n._(
                "The userid '%(userid)s' is too much like the existing player '%(existing)s' "
                "(they differ only in letter case, the characters _ - ., or 0 for O and 1 for "
                "l or I); please choose one nobody could mistake for another player.",
                userid=userid,
                existing=existing,
            )
        )


def reachable(player: Account) -> bool:
    """Whether mail for ``player`` reaches them: a registered address (an account whose
    first address waits for its code has none yet), or a robot, which plays here."""
    return bool(player.addresses) or player.userid_key in ROBOTS


def check_reachable(player: Account, *, board: int | None = None) -> None:
    """Raise a Refused, for the sender, if ``player`` has no address to mail yet."""
    if not reachable(player):
        raise Refused(
            i18n._(
                "%(userid)s has not confirmed an address yet, so no mail can reach them and "
                "nothing was started; try again once they have confirmed their signup.",
                userid=player.userid,
            ),
            board=board,
        )


def check_password(password: str) -> None:
    """Raise a Refused unless ``password`` is acceptable as a new password
    (:func:`~pbm_emergo.game.accounts.password_fault`)."""
    fault = password_fault(password)
    if fault is not None:
        raise Refused(said(fault))


def require_player(ctx: UnitOfWork, userid: str, *, board: int | None = None) -> PlayerRead:
    """The active player with this userid, read as values, or a Refused."""
    found = read_player(ctx.session, userid)
    if found is None or not found.account.active:
        raise no_such_player(ctx, userid, board=board)
    return found


def require_account(ctx: UnitOfWork, userid: str, *, board: int | None = None) -> Account:
    """As :func:`require_player`, the player's account read as a value."""
    account = read_account(ctx.session, userid)
    if account is None or not account.active:
        raise no_such_player(ctx, userid, board=board)
    return account


def no_such_player(ctx: UnitOfWork, userid: str, *, board: int | None = None) -> Refused:
    """The refusal of a userid that names no active player."""
    # A word that may be a password is not echoed (it would show as ********).
    named = (
        i18n._("There is no player by that name") if userid in ctx.secrets.words
        else i18n._("There is no player '%(userid)s'", userid=userid[:40])
    )
    return Refused(f"{named}.{similar_players(ctx, userid)}", board=board)


def similar_players(ctx: UnitOfWork, userid: str) -> str:
    """The sentence naming the players whose userids are near a mistyped one, or ""."""
    if ctx.session is None:
        return ""
    names = {u.lower(): u for u in players.active_userids(ctx.session)}
    key = userid.lower()
    near = difflib.get_close_matches(key, list(names), n=3, cutoff=0.6)
    # The nearest first, ties in alphabetical order.
    near.sort(key=lambda n: (-difflib.SequenceMatcher(None, key, n).ratio(), n))
    if not near:
        return ""
    similar = ", ".join(names[n] for n in near)
    return " " + i18n._("Players with similar names: %(names)s.", names=similar)


def is_registered(player: Account, address: str) -> bool:
    return address.lower() in player.address_keys


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def authenticate(
    ctx: UnitOfWork, userid: str, password: str, *, board: int | None = None
) -> PlayerRead:
    """The player, read as values, if ``password`` is theirs; otherwise a Refused (see
    :func:`check_login`)."""
    player = require_player(ctx, userid, board=board)
    check_login(ctx, player.account, password, board=board)
    return player


def authenticate_seated(
    ctx: UnitOfWork,
    userid: str,
    password: str,
    seated: Sequence[Account],
    *,
    board: int | None = None,
    no_failures: Collection[int] = (),
) -> Account:
    """As :func:`authenticate`, for a userid looked for first among the accounts read with
    a board (``seated``); the account if ``password`` is its own."""
    key = players.userid_key(userid)
    account = next((a for a in seated if a.userid_key == key), None)
    if account is None:
        account = require_account(ctx, userid, board=board)
    elif not account.active:
        raise no_such_player(ctx, userid, board=board)
    check_login(ctx, account, password, board=board, no_failures=no_failures)
    return account


def check_login(
    ctx: UnitOfWork,
    account: Account,
    password: str,
    *,
    board: int | None = None,
    no_failures: Collection[int] = (),
) -> None:
    """Nothing if ``password`` is the account's; otherwise a Refused (and a failure counted,
    per userid and sender; past the caps on wrong passwords per mail and per sender, refused
    without a hash: see :mod:`pbm_emergo.app.lockout`). ``no_failures``: ids of
    players read to have no wrong passwords counted (their counts are not looked up).

    A right password from an address the player has not registered is accepted (as pbmserv
    does) and the registered addresses get a notice. The password is checked here, in the
    command's reading step (the credential cache makes a repeated check cheap); what it
    changes (the failure count, a renewed hash) is stored by the command's writes.
    """
    failures = (
        {} if account.id in no_failures else players.login_failures_of(ctx.session, account.id)
    )
    lockout.check_not_locked(ctx, account, failures, board=board)
    verified = lockout.checked_password(ctx, account, password, board=board)
    if not verified.ok:
        raise lockout.wrong_password(ctx, account, failures, board=board)
    # A verified password is taken out of everything this mail leads to: its comment (the
    # lines holding it are left out) and every reply (see commands.masking).
    ctx.secrets.add_password(password)
    ctx.comment = ctx.secrets.scrub_comment(ctx.comment_written)
    if verified.new_hash is not None:
        ctx.write(PasswordHashStored(account.id, verified.new_hash, account.password_hash))
    lockout.right_password(ctx, account, failures)
    # What the command sends to others is charged to this account too, whatever its From.
    ctx.budget.logged_in(account.id, list(account.addresses))
    if not (ctx.sender_trusted and is_registered(account, ctx.sender)):
        notify_foreign_address(ctx, account)


def notify_foreign_address(ctx: UnitOfWork, player: Account) -> None:
    """Tell the player's registered addresses that their password came from elsewhere."""
    key = player.userid_key
    if key in ctx.notified:
        return
    ctx.notified.add(key)
    with i18n.speaking(player.language):  # the account owner's mail
        body = render(
            "notice/foreign_address.txt.j2",
            userid=player.userid,
            sender=ctx.sender,
            command=ctx.masked_line,
            when=i18n.moment(ctx.now, "UTC"),
        )
    for address in player.addresses:
        ctx.notices.append(
            Reply(to=address, subject=f"Emergo notice: {player.userid}", body=body)
        )
