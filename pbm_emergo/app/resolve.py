"""The two parts every game request shares, resolved once here: its board and its login.

A handler calls them in its own order, which is the order of the refusals a player sees (a
board looked up before the password is checked, a value checked before either); the game
operations it then calls take the :class:`~pbm_emergo.db.models.Player` logged in (and the
:class:`~pbm_emergo.db.models.Board` found), never a password, so that the robots, the
scheduler, the web view and admin call them too.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from pbm_emergo.app.accounts import authenticate
from pbm_emergo.app.boards import get_board, get_board_and_facts
from pbm_emergo.app.results import Refused
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db.games import BoardFacts
from pbm_emergo.db.models import Board, Player
from pbm_emergo.game.requests import BoardRef, LoginRequest, Password
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said

# The reason given when a board argument has a move number (``101#7``) where the request
# takes none: from the board and that number.
AloneReason = Callable[[Board, int], str]


def board(
    ctx: UnitOfWork, ref: BoardRef, *, alone: bool | AloneReason = False
) -> tuple[Board, int | None]:
    """The board ``ref`` names, and the move number written after it (``101#7``), or a
    Refused (see :func:`pbm_emergo.app.boards.get_board`).

    ``alone``: the request takes no move number there; one written is refused with the
    reason the command layer wrote (:attr:`BoardRef.alone`), or the reason ``alone``
    makes."""
    found, upto = get_board(ctx, str(ref))
    _check_alone(ref, found, upto, alone)
    return found, upto


def board_and_facts(
    ctx: UnitOfWork, ref: BoardRef, *, alone: bool | AloneReason = False
) -> tuple[Board, BoardFacts, int | None]:
    """As :func:`board`, with the facts read beside it (see
    :func:`pbm_emergo.app.boards.get_board_and_facts`)."""
    found, facts, upto = get_board_and_facts(ctx, str(ref))
    _check_alone(ref, found, upto, alone)
    return found, facts, upto


def _check_alone(
    ref: BoardRef, found: Board, upto: int | None, alone: bool | AloneReason
) -> None:
    if upto is None or alone is False:
        return
    reason = alone(found, upto) if callable(alone) else ref.alone
    raise Refused(said(reason), board=found.number)


def login(
    ctx: UnitOfWork,
    request: LoginRequest,
    *,
    board: int | None = None,
    known: Sequence[Player] = (),
    no_failures: Collection[int] = (),
) -> Player:
    """The player whose userid and password the request names, if the password is theirs;
    otherwise a Refused, the failure counted once (see
    :func:`pbm_emergo.app.accounts.authenticate`, which takes the options)."""
    return login_as(
        ctx, request.userid, request.password,
        board=board, known=known, no_failures=no_failures,
    )


def login_as(
    ctx: UnitOfWork,
    userid: str,
    password: Password,
    *,
    board: int | None = None,
    known: Sequence[Player] = (),
    no_failures: Collection[int] = (),
) -> Player:
    """As :func:`login`, for a userid and password given apart (``emergo move``). The
    mail's replies are in the language of the player it logs in as."""
    player = authenticate(
        ctx, userid, password.text, board=board, known=known, no_failures=no_failures
    )
    i18n.settle(player.language)
    return player
