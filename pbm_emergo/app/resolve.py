"""The two parts every game request shares, resolved once here: its board and its login.

A handler calls them in its own order, which is the order of the refusals a player sees (a
board looked up before the password is checked, a value checked before either); the game
operations it then calls take what was read and who logged in, never a password, so that
the robots, the scheduler, the web view and admin call them too. A board is read as values
(:func:`board_read`); a request on a board logs in on its players' accounts read with it
(:func:`login_seated`, an :class:`~pbm_emergo.db.reads.accounts.Account`), the others
through :func:`login` (a :class:`~pbm_emergo.db.reads.snapshot.PlayerRead`: the account,
the seat and the settings read in one statement).
"""

from __future__ import annotations

from collections.abc import Callable

from pbm_emergo.app.accounts import authenticate, authenticate_seated
from pbm_emergo.app.boards import get_board_read
from pbm_emergo.app.results import Refused
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.snapshot import BoardRead, PlayerRead
from pbm_emergo.game.requests import BoardRef, LoginRequest, Password
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said

# The reason given when a board argument has a move number (``101#7``) where the request
# takes none: from the board's number, its moves so far and that number.
AloneReason = Callable[[int, int, int], str]


def board_read(
    ctx: UnitOfWork, ref: BoardRef, *, alone: bool | AloneReason = False
) -> BoardRead:
    """The board ``ref`` names, read as values (see
    :func:`pbm_emergo.app.boards.get_board_read`), or a Refused.

    ``alone``: the request takes no move number there (``101#7``); one written is refused
    with the reason the command layer wrote (:attr:`BoardRef.alone`), or the reason
    ``alone`` makes."""
    read = get_board_read(ctx, ref.number, ref.upto)
    _check_alone(ref, ref.number, read.snapshot.state.ply, ref.upto, alone)
    return read


def _check_alone(
    ref: BoardRef, number: int, ply: int, upto: int | None, alone: bool | AloneReason
) -> None:
    if upto is None or alone is False:
        return
    reason = alone(number, ply, upto) if callable(alone) else ref.alone
    raise Refused(said(reason), board=number)


def login(ctx: UnitOfWork, request: LoginRequest, *, board: int | None = None) -> PlayerRead:
    """The player whose userid and password the request names, read as values, if the
    password is theirs; otherwise a Refused, the failure counted once (see
    `pbm_emergo.app.accounts.authenticate`)."""
    player = authenticate(ctx, request.userid, request.password.text, board=board)
    # The mail's replies are in the language of the player it logs in as.
    i18n.settle(player.language)
    return player


def login_seated(
    ctx: UnitOfWork, userid: str, password: Password, read: BoardRead
) -> Account:
    """As :func:`login`, for a userid and password given apart (``emergo move``) on the
    board ``read``: its players' accounts, read with it, are looked at first, and a player
    it found no wrong passwords counted for needs no look-up of them."""
    state = read.snapshot.state
    account = authenticate_seated(
        ctx, userid, password.text, read.accounts, board=state.number,
        no_failures={state.white.id, state.black.id} - read.facts.failing,
    )
    i18n.settle(account.language)
    return account
