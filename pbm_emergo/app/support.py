"""The operator's support cases: a new password, a lock-out lifted, a board resigned or
adjudicated, a player deleted or merged into another.

``pbm-emergo admin`` runs each through :func:`run_case`, as the scheduler runs its timed
work (:class:`pbm_emergo.app.runner.Runner`): the case reads, decides and renders in a
reading session, then one short write transaction stores its changes (each re-checking
what the case read: a move meanwhile conflicts, and the case starts over from a fresh
read) and queues its mails through the outbox. Every case takes the operator's
``reason``, which the mails to the players carry and the command line logs. A case the
server cannot carry out raises :class:`Refused` with what to do instead. A case reads its
players and boards as values (:func:`~pbm_emergo.db.reads.snapshot.read_player`,
:func:`~pbm_emergo.db.reads.snapshot.read_board`, the wrong passwords counted as
:class:`~pbm_emergo.db.players.LoginFailureRead`), never a row's object.

Board results go through the same steps as the players' own
(:func:`pbm_emergo.app.boards.finish_game`): rated as any game end, the final board mail to
both players and the subscribers. A
password is made here and mailed to the player's registered address; only its argon2id
hash is stored, and nothing prints it.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pbm_emergo.app.addresses import CODE_ALPHABET
from pbm_emergo.app.boards import board_mails, finish_game
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.outbox import BuiltReply, LimitNotices
from pbm_emergo.app.play import resign_all
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.runner import Ran, Runner, Work
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.config import Config
from pbm_emergo.db import players, reads, support
from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.snapshot import BoardRead, PlayerRead, read_board, read_player
from pbm_emergo.db.session import Session, SessionFactory
from pbm_emergo.db.types import utcnow
from pbm_emergo.game.account_changes import (
    AccountClosed,
    LoginFailuresCleared,
    PasswordHashStored,
    PlayerDeleted,
    PlayersMerged,
)
from pbm_emergo.game.board import BLACK, WHITE, other_side
from pbm_emergo.robot import ROBOTS
from pbm_emergo.rules import Termination
from pbm_emergo.views.templating import render_in

if TYPE_CHECKING:
    from pbm_emergo.config import Config

# A new password: 12 characters of the confirmation codes' alphabet (60 random bits), in
# groups of four, easy to copy from a mail.
PASSWORD_GROUPS = 3
DRAW = "draw"


@dataclass(frozen=True)
class PlayerSeen:
    """What a reply needs of a player, read before the writes change the rows."""

    userid: str
    addresses: tuple[str, ...]

    @classmethod
    def of(cls, player: Account) -> PlayerSeen:
        return cls(player.userid, player.addresses)


def operator_address(ctx: UnitOfWork) -> str:
    """Where players write to the operator: the postmaster of the server's domain, whom a
    mail server must deliver to a person (RFC 5321)."""
    return f"postmaster@{ctx.config.domain}"


def new_password() -> str:
    """A random password such as ``K7QX-M2PD-9HTR``."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(4 * PASSWORD_GROUPS))
    return "-".join(raw[i : i + 4] for i in range(0, len(raw), 4))


def _player(ctx: UnitOfWork, userid: str) -> PlayerRead:
    """The player ``userid`` (any letter case, signed off or not) read as values, or a
    Refused."""
    player = read_player(ctx.session, userid)
    if player is None:
        raise Refused(f"There is no player {userid!r}; `pbm-emergo admin players` lists them.")
    return player


def _not_robot(player: Account, what: str) -> None:
    if player.userid_key in ROBOTS:
        raise Refused(
            f"{player.userid} is one of the server's robots, which come with the database: "
            f"a robot account cannot be {what}."
        )


def _reason(reason: str) -> str:
    text = " ".join(reason.split())
    if not text:
        raise Refused("Give the reason with --reason: the players are told it, and it is logged.")
    return text


def _to(player: PlayerSeen, subject: str, body: str) -> list[Reply]:
    return [Reply(to=address, subject=subject, body=body) for address in player.addresses]


# --- a new password ------------------------------------------------------------------------


def reset_password(
    ctx: UnitOfWork, userid: str, reason: str, *, address: str | None = None
) -> Result:
    """Give ``userid`` a new random password and mail it to one of their registered
    addresses (``address``, else the first: the one board mails go to). The password is
    in that mail only; the summary names the address, not the password."""
    reason = _reason(reason)
    player = _player(ctx, userid).account
    _not_robot(player, "given a password")
    if not player.active:
        raise Refused(f"{player.userid} has signed off: a signed-off account cannot log in.")
    registered = {players.address_key(a): a for a in player.addresses}
    if not registered:
        raise Refused(
            f"{player.userid} has no registered address yet (their signup waits for its "
            "confirmation code), so a new password could not reach them."
        )
    if address is None:
        to = player.addresses[0]
    elif address.strip().lower() in registered:
        to = registered[address.strip().lower()]
    else:
        raise Refused(
            f"{address} is not a registered address of {player.userid} (they are "
            f"{', '.join(registered.values())}): a password goes only to an address the "
            "player confirmed."
        )
    password = new_password()
    password_hash = players.hash_password(password)
    ctx.write(PasswordHashStored(player.id, password_hash, player.password_hash))
    body = render_in(
        player.language,
        "notice/support_password.txt.j2",
        userid=player.userid, reason=reason, password=password, server=operator_address(ctx),
    )
    locked = [
        row.sender_key
        for row in players.login_failures_of(ctx.session, player.id).values()
        if row.locked_until is not None and row.locked_until > ctx.now
    ]
    note = (
        f" ({player.userid} is still locked out: `pbm-emergo admin unlock {player.userid}` "
        "lifts it)"
        if locked
        else ""
    )
    return Result(
        summary=f"new password of {player.userid} mailed to {to}{note}",
        replies=[
            Reply(to=to, subject=f"Emergo: new password for {player.userid}", body=body,
                  secret=True)
        ],
    )


# --- a lock-out lifted ---------------------------------------------------------------------


def unlock(ctx: UnitOfWork, userid: str, reason: str) -> Result:
    """Forget every wrong password counted for ``userid`` (``login_failures``): the locks
    of every sender end now. The player's registered addresses are told."""
    reason = _reason(reason)
    player = _player(ctx, userid).account
    rows = players.login_failures_of(ctx.session, player.id)
    if not rows:
        return Result(summary=f"{player.userid} has no wrong passwords counted: nothing to lift")
    locked = sorted(
        key
        for key, row in rows.items()
        if row.locked_until is not None and row.locked_until > ctx.now
    )
    ctx.write(LoginFailuresCleared(player.id))
    body = render_in(
        player.language,
        "notice/support_unlocked.txt.j2",
        userid=player.userid, reason=reason, server=operator_address(ctx),
    )
    what = f"locks lifted for {', '.join(locked)}" if locked else "no lock was on"
    return Result(
        summary=f"{player.userid}: wrong passwords forgotten from {len(rows)} sender(s); {what}",
        replies=_to(
            PlayerSeen.of(player), f"Emergo: your userid {player.userid} is unlocked", body
        ),
    )


# --- a board resigned or adjudicated -------------------------------------------------------


def _active_board(ctx: UnitOfWork, number: int) -> BoardRead:
    """Board ``number`` read as values, or a Refused if there is none or its game is over."""
    read = read_board(ctx.session, number)
    if read is None:
        raise Refused(f"There is no board {number}.")
    state = read.snapshot.state
    if not state.active:
        raise Refused(
            f"The game on board {number} is over already ({state.outcome_reason}): "
            "its result stands."
        )
    return read


def _seat(read: BoardRead, userid: str) -> tuple[Account, str]:
    """The player ``userid`` of the board ``read`` and their side, or a Refused."""
    key = players.userid_key(userid)
    for account, side in zip(read.accounts, (WHITE, BLACK), strict=True):
        if account.userid_key == key:
            return account, side
    white, black = read.userids
    raise Refused(
        f"{userid} does not play on board {read.snapshot.number}: it is "
        f"{white} against {black}."
    )


def resign_board(ctx: UnitOfWork, number: int, userid: str, reason: str) -> Result:
    """Resign the game on board ``number`` for ``userid``: the opponent wins (reason
    ``resigned``), rated as any resignation; both players (and the subscribers) get the
    final board mail, which says who resigned it and why."""
    reason = _reason(reason)
    read = _active_board(ctx, number)
    player, side = _seat(read, userid)
    winner = other_side(side)
    state = finish_game(ctx, read.snapshot.state, winner, Termination.RESIGNED)
    headline = f"The server's operator resigned this game for {player.userid}: {reason}"
    return Result(
        summary=f"board {number}: resigned for {player.userid}, "
        f"{state.seat(winner).userid} wins",
        replies=board_mails(ctx, state, headline=headline),
    )


def adjudicate(
    ctx: UnitOfWork, number: int, result: str, reason: str, *, rated: bool = True
) -> Result:
    """End the game on board ``number`` as the operator decides: ``result`` is the
    winner's userid, or ``draw``. Stored with the reason ``adjudicated`` and rated as any
    game end (``rated`` False: counted as a win, loss or draw, the ratings untouched, the
    board unrated); both players (and the subscribers) get the final board mail with the
    operator's reason."""
    reason = _reason(reason)
    read = _active_board(ctx, number)
    if result.strip().lower() == DRAW:
        winner: str | None = None
        decided = "a draw"
    else:
        player, winner = _seat(read, result)
        decided = f"{player.userid} wins"
    state = read.snapshot.state
    if not rated:
        state = dataclasses.replace(state, rated=False)
    state = finish_game(ctx, state, winner, Termination.ADJUDICATED)
    unrated = "" if rated else " (unrated)"
    headline = f"The server's operator adjudicated this game, {decided}{unrated}: {reason}"
    return Result(
        summary=f"board {number}: adjudicated, {decided}{unrated}",
        replies=board_mails(ctx, state, headline=headline),
    )


def void_board(ctx: UnitOfWork, number: int, reason: str) -> Result:
    """Annul the game on board ``number`` (an opponent who vanished after move 1): it ends
    with the reason ``void``, no winner, no win, loss or draw counted and no rating change;
    both players (and the subscribers) get the final board mail with the operator's
    reason."""
    reason = _reason(reason)
    state = dataclasses.replace(_active_board(ctx, number).snapshot.state, rated=False)
    state = finish_game(ctx, state, None, Termination.VOIDED)
    headline = f"The server's operator declared this game void (no result, no rating): {reason}"
    return Result(
        summary=f"board {number}: void", replies=board_mails(ctx, state, headline=headline)
    )


# --- a player deleted or merged ------------------------------------------------------------


def delete_player(ctx: UnitOfWork, userid: str, reason: str, *, resign_games: bool) -> Result:
    """Delete the account ``userid``.

    Refused while the player has active games, unless ``resign_games``: then each is
    resigned first (rated as any resignation, the final board mail to both players). A
    player who never had a board is deleted with everything of theirs; one with boards
    keeps a closed row for those games (see :func:`pbm_emergo.db.support.close_account`).
    The player's registered addresses are told.
    """
    reason = _reason(reason)
    player = _player(ctx, userid).account
    _not_robot(player, "deleted")
    seen = PlayerSeen.of(player)
    active = reads.active_board_numbers(ctx.session, player.id)
    if active and not resign_games:
        numbers = ", ".join(str(number) for number in active)
        raise Refused(
            f"{player.userid} has active games (boards {numbers}): resign or adjudicate "
            "them first, or delete with --resign-games to resign them all."
        )
    replies = resign_all(
        ctx, player.id, active,
        f"The server's operator deleted the account of {player.userid} and resigned this "
        f"game for them: {reason}",
    )
    kept = bool(support.board_numbers_of(ctx.session, player.id))
    language = player.language
    ctx.write(AccountClosed(player.id, ctx.now) if kept else PlayerDeleted(player.id))
    body = render_in(
        language,
        "notice/support_deleted.txt.j2",
        userid=player.userid, reason=reason, resigned=active, kept=kept,
        server=operator_address(ctx),
    )
    replies += _to(seen, f"Emergo: your account {player.userid} is deleted", body)
    what = "closed (its finished games keep it)" if kept else "deleted"
    resigned = f", boards {', '.join(str(number) for number in active)} resigned" if active else ""
    return Result(summary=f"{player.userid}: account {what}{resigned}", replies=replies)


def merge_players(ctx: UnitOfWork, old_userid: str, kept_userid: str, reason: str) -> Result:
    """Merge the account ``old_userid`` into ``kept_userid`` (see
    :func:`pbm_emergo.db.support.merge_players` for what moves); the kept account's
    addresses, the moved ones with them, are told."""
    reason = _reason(reason)
    old = _player(ctx, old_userid).account
    kept_read = _player(ctx, kept_userid)
    kept = kept_read.account
    if old.id == kept.id:
        raise Refused(f"{old_userid} and {kept_userid} are the same account.")
    for player in (old, kept):
        _not_robot(player, "merged")
    if not kept.active:
        raise Refused(
            f"{kept.userid} has signed off: merge into an account that plays (or the "
            f"other way round: `merge-players {kept.userid} {old.userid}`)."
        )
    shared = support.boards_between(ctx.session, old.id, kept.id)
    if shared:
        raise Refused(
            f"{old.userid} and {kept.userid} play each other on board"
            f"{'s' if len(shared) > 1 else ''} {', '.join(map(str, shared))}, and a board "
            "needs two players: they cannot be merged."
        )
    boards = support.board_numbers_of(ctx.session, old.id)
    addresses = list(kept.addresses)
    keys = {a.lower() for a in addresses}
    for address in old.addresses:
        if address.lower() not in keys:
            keys.add(address.lower())
            addresses.append(address)
    ctx.write(PlayersMerged(old.id, kept.id))
    body = render_in(
        kept.language,
        "notice/support_merged.txt.j2",
        old=old.userid, kept=kept.userid, reason=reason, boards=boards,
        rating=kept_read.seat.rating, addresses=addresses, server=operator_address(ctx),
    )
    moved = f", boards {', '.join(map(str, boards))} moved" if boards else ""
    return Result(
        summary=f"{old.userid} merged into {kept.userid}{moved}",
        replies=_to(
            PlayerSeen(kept.userid, tuple(addresses)),
            f"Emergo: {old.userid} is merged into {kept.userid}",
            body,
        ),
    )


# --- running a case ------------------------------------------------------------------------


def run_case(
    factory: SessionFactory, config: Config, case: Callable[[UnitOfWork], Result],
    now: datetime,
) -> tuple[Result | None, Ran]:
    """Run one support case (``case`` of a unit of work, at ``now``) as a runner's
    operation: its result as last decided (None when given up after conflicts) and what
    was stored and queued. A :class:`Refused` goes to the caller, nothing stored."""
    decided: list[Result] = []

    def operation(session: Session, at: datetime) -> Work:
        ctx = UnitOfWork(session=session, config=config, now=at)
        result = case(ctx)
        decided[:] = [result]
        return Work(tuple(ctx.writes), tuple(result.replies), result.summary)

    ran = _SupportRunner(factory, config, clock=lambda: now).perform(operation, now=now)
    return (None if ran.conflicted else decided[0]), ran


class _SupportRunner(Runner):
    """The operator's mail is never held by the hourly cap: a reset password or an
    adjudication reaches the player now, however much mail they got this hour."""

    def enqueue(
        self, session: Session, built: Sequence[BuiltReply], now: datetime,
        limit_notices: LimitNotices,
    ) -> int:
        return self.outbox.enqueue(session, built, now, capped=False)


# --- carrying out a case -------------------------------------------------------------------


@dataclass(frozen=True)
class CarriedOut:
    """A case done: its result, and how many of its mails the outbox queued."""

    result: Result
    mailed: int

    @property
    def held(self) -> int:
        return len(self.result.replies) - self.mailed

    @property
    def summary(self) -> str:
        """The result in one line, with its mails, as the command line and the console
        print it."""
        held = f" ({self.held} held back)" if self.held else ""
        return f"{self.result.summary}; {len(self.result.replies)} mail(s) queued{held}"


def carry_out(
    sessions: SessionFactory,
    config: Config,
    case: Callable[[UnitOfWork], Result],
    now: datetime | None = None,
) -> CarriedOut:
    """Run one support ``case`` through the runner (:func:`run_case`). Raises
    :class:`Refused`, or :class:`Conflict` when the board or player changed meanwhile on
    every attempt; then nothing changed. ``pbm-emergo admin`` and the web console both run
    their cases here."""
    now = utcnow() if now is None else now
    players.hash_at_configured_cost(config)  # a reset password is hashed as the server would
    result, ran = run_case(sessions, config, case, now)
    if result is None:
        raise Conflict("the board or player changed meanwhile, again and again")
    return CarriedOut(result, ran.queued)
