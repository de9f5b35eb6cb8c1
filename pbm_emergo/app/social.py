"""Watching other people's games: subscriptions to a board's mails (or every board's) as a
spectator, and the final board mail of finished games (notices)."""

from __future__ import annotations

from collections.abc import Sequence

from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import spectators
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.watchers import WatchedBoard, watched_board
from pbm_emergo.game.board_changes import (
    NotificationsToggled,
    SubscriptionAdded,
    SubscriptionsRemoved,
)
from pbm_emergo.game.requests import not_a_board, parse_board_ref
from pbm_emergo.game.subscriptions import decide_subscribe, decide_unsubscribe
from pbm_emergo.rules.reasons import Reason
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render


def boards_text(numbers: Sequence[int | None]) -> str:
    """``every board``, ``board 101``, ``boards 101, 105``; ``no board``."""
    if None in numbers:
        return "every board"
    if not numbers:
        return "no board"
    if len(numbers) == 1:
        return f"board {numbers[0]}"
    return "boards " + ", ".join(str(n) for n in numbers)


def _watched_board(ctx: UnitOfWork, number: int) -> WatchedBoard:
    """Board ``number`` read as a value, or a Refused."""
    board = watched_board(ctx.session, number)
    if board is None:
        raise Refused(i18n._("There is no board %(number)s.", number=number))
    return board


def subscription_board(ctx: UnitOfWork, number: int | None) -> WatchedBoard | None:
    """The board numbered ``number`` (None: every board), or a Refused: what
    :func:`subscribe` and :func:`unsubscribe` are about, looked up before the login."""
    if number is None:
        return None
    return _watched_board(ctx, number)


def _subscriptions_answer(player: Account, watched: list[int | None], headline: str) -> str:
    return render(
        "subscriptions.txt.j2",
        headline=headline,
        userid=player.userid,
        boards=[n for n in watched if n is not None],
        every=None in watched,
    )


def _joined(numbers: Sequence[int | None]) -> str:
    """``101, 105``: the board numbers a sentence names."""
    return ", ".join(str(n) for n in numbers)


def subscribe(ctx: UnitOfWork, player: Account, board: WatchedBoard | None) -> Result:
    """Subscribe the player to the mails of ``board`` (None: of every board); the decision
    is :func:`pbm_emergo.game.subscriptions.decide_subscribe`."""
    number = None if board is None else board.number
    decided = decide_subscribe(
        player.userid, spectators.subscriptions_of(ctx.session, player.id), number,
        plays_on=board is not None and board.plays_on(player.id),
        active=board is None or board.active,
    )
    if isinstance(decided, Reason):
        raise Refused(said(decided), board=number)
    if decided.added:
        ctx.write(SubscriptionAdded(player.id, number, ctx.now))
        headline = (
            i18n._("%(userid)s is now subscribed to every board.", userid=player.userid)
            if number is None
            else i18n._(
                "%(userid)s is now subscribed to board %(board)s.",
                userid=player.userid,
                board=number,
            )
        )
    else:
        headline = (
            i18n._("%(userid)s is already subscribed to every board.", userid=player.userid)
            if number is None
            else i18n._(
                "%(userid)s is already subscribed to board %(board)s.",
                userid=player.userid,
                board=number,
            )
        )
    return Result(
        said=lambda: (
            i18n._("subscribed %(userid)s to every board", userid=player.userid)
            if number is None
            else i18n._(
                "subscribed %(userid)s to board %(board)s", userid=player.userid, board=number
            )
        ),
        answer=_subscriptions_answer(player, list(decided.watched), headline),
        answer_subject=f"Emergo subscriptions of {player.userid}",
    )


def unsubscribe(ctx: UnitOfWork, player: Account, board: WatchedBoard | None) -> Result:
    """End the subscription of the player to ``board`` (None: every subscription); the
    decision is :func:`pbm_emergo.game.subscriptions.decide_unsubscribe`."""
    number = None if board is None else board.number
    decided = decide_unsubscribe(
        player.userid, spectators.subscriptions_of(ctx.session, player.id), number
    )
    if isinstance(decided, Reason):
        raise Refused(said(decided), board=number)
    dropped = decided.dropped
    if dropped:
        ctx.write(SubscriptionsRemoved(player.id, dropped))

    def headline() -> str:
        if None in dropped:
            return i18n._(
                "%(userid)s is no longer subscribed to every board.", userid=player.userid
            )
        if dropped:
            return i18n.ngettext(
                "%(userid)s is no longer subscribed to board %(boards)s.",
                "%(userid)s is no longer subscribed to boards %(boards)s.",
                len(dropped),
                boards=_joined(dropped),
                userid=player.userid,
            )
        return i18n._("%(userid)s was not subscribed to any board.", userid=player.userid)

    return Result(
        said=headline,
        answer=_subscriptions_answer(player, list(decided.left), headline()),
        answer_subject=f"Emergo subscriptions of {player.userid}",
    )


def watchable_board(ctx: UnitOfWork, word: str) -> int:
    """The number of the active board ``word`` names, whose final board mail one may ask for."""
    ref = parse_board_ref(word)
    if ref is None:
        raise Refused(said(not_a_board(word)))
    board = _watched_board(ctx, ref[0])
    if not board.active:
        raise Refused(
            i18n._("The game on board %(board)s is over already.", board=board.number),
            board=board.number,
        )
    return board.number


def toggle_notifications(
    ctx: UnitOfWork, player: Account, numbers: Sequence[int] = ()
) -> Result:
    """Turn on (or, when on, off) the final board mail of every game that ends (no
    ``numbers``), or of each of the active boards ``numbers`` (see :func:`watchable_board`)."""
    toggled_boards = list(dict.fromkeys(numbers))
    current = spectators.notifications_of(ctx.session, player.id)
    toggled: list[int | None] = list(toggled_boards) if toggled_boards else [None]
    on = [n for n in toggled if n not in current]
    off = [n for n in toggled if n in current]
    ctx.write(NotificationsToggled(player.id, tuple(on), tuple(off), ctx.now))
    after = [n for n in current if n not in off] + on
    after.sort(key=lambda n: (n is not None, n or 0))
    summary = []
    lines = []
    if on:
        summary.append(f"On: the final board mail of {_games(on)}.")
        lines.append(
            i18n._("On: the final board mail of every finished game.")
            if None in on
            else i18n.ngettext(
                "On: the final board mail of board %(boards)s.",
                "On: the final board mail of boards %(boards)s.",
                len(on),
                boards=_joined(on),
            )
        )
    if off:
        summary.append(f"Off: no more final board mail of {_games(off)}.")
        lines.append(
            i18n._("Off: no more final board mail of every finished game.")
            if None in off
            else i18n.ngettext(
                "Off: no more final board mail of board %(boards)s.",
                "Off: no more final board mail of boards %(boards)s.",
                len(off),
                boards=_joined(off),
            )
        )
    return Result(
        summary="; ".join(summary),
        summary_said=" ".join(lines),
        answer=render(
            "notify.txt.j2",
            userid=player.userid,
            lines=lines,
            every=None in after,
            boards=[n for n in after if n is not None],
        ),
        answer_subject=f"Emergo notices of {player.userid}",
    )


def _games(numbers: list[int | None]) -> str:
    return "every finished game" if None in numbers else boards_text(numbers)
