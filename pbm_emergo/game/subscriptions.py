"""Watching other people's games on values: what ``emergo subscribe`` and ``emergo
unsubscribe`` do to a player's subscriptions (a board's mails, or every board's: None).

A player who plays on a board gets its mails anyway, and a finished game has nothing more
to send, so neither is subscribed to; a subscription to every board covers each board, so
one board is not left out of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules.reasons import Reason

__all__ = ["Subscribed", "Unsubscribed", "decide_subscribe", "decide_unsubscribe", "in_order"]


@dataclass(frozen=True)
class Subscribed:
    """A subscription decided: ``added`` (False: it was there already) and the player's
    subscriptions after it, in order."""

    added: bool
    watched: tuple[int | None, ...]


@dataclass(frozen=True)
class Unsubscribed:
    """Subscriptions ended: ``dropped`` (none: there were none), and those ``left``."""

    dropped: tuple[int | None, ...]
    left: tuple[int | None, ...]


def in_order(numbers: Iterable[int | None]) -> tuple[int | None, ...]:
    """Subscriptions in the order they are listed: every board first, then by number."""
    return tuple(sorted(numbers, key=lambda n: (n is not None, n or 0)))


def decide_subscribe(
    userid: str, watched: Iterable[int | None], number: int | None, *,
    plays_on: bool = False, active: bool = True,
) -> Subscribed | Reason:
    """``userid``, subscribed to ``watched``, subscribes to board ``number`` (None: every
    board), on which they play (``plays_on``) or not, whose game is ``active`` or over."""
    current = tuple(watched)
    if number is not None:
        if plays_on:
            return refusal("subscribe_plays", userid=userid, board=number)
        if not active:
            return refusal("subscribe_over", board=number)
    if number in current or (number is not None and None in current):
        return Subscribed(False, in_order(current))
    return Subscribed(True, in_order((*current, number)))


def decide_unsubscribe(
    userid: str, watched: Iterable[int | None], number: int | None
) -> Unsubscribed | Reason:
    """``userid``, subscribed to ``watched``, ends the subscription to board ``number``
    (None: every subscription they have)."""
    current = tuple(watched)
    if number is None:
        dropped = current
    elif number in current:
        dropped = (number,)
    elif None in current:
        return refusal("unsubscribe_from_every", userid=userid, board=number)
    else:
        return refusal("not_subscribed", userid=userid, board=number)
    return Unsubscribed(dropped, tuple(n for n in current if n not in dropped))
