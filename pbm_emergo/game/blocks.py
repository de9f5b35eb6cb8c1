"""Blocking a player on values: what ``block`` and ``unblock`` change, and who of a mail's
recipients gets it.

A block is one player's (the blocker's) refusal of another's challenges, messages and
chat. The blocked player is never told: a challenge is refused as when the blocker
refuses every challenge, and a message or a chat is answered as if it had gone, the
blocker's copy left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules.reasons import Reason


@dataclass(frozen=True)
class BlockAdded:
    """``player_id`` blocks ``blocked_id`` from ``at`` (blocked already meanwhile: nothing
    more)."""

    player_id: int
    blocked_id: int
    at: datetime


@dataclass(frozen=True)
class BlockRemoved:
    """``player_id`` no longer blocks ``blocked_id``."""

    player_id: int
    blocked_id: int


def block_refusal(player_id: int, other_id: int, *, on: bool, blocked: bool) -> Reason | None:
    """Why ``block`` (``on``) or ``unblock`` of ``other_id`` by ``player_id`` changes
    nothing (``blocked``: whether the block is there now), or None."""
    if player_id == other_id:
        return refusal("block_self") if on else refusal("unblock_self")
    if on and blocked:
        return None
    if not on and not blocked:
        return refusal("not_blocked")
    return None


def block_change(
    player_id: int, other_id: int, at: datetime, *, on: bool, blocked: bool
) -> BlockAdded | BlockRemoved | None:
    """The change of ``block`` (``on``) or ``unblock``; None when there is nothing to
    change (blocked already)."""
    if on:
        return None if blocked else BlockAdded(player_id, other_id, at)
    return BlockRemoved(player_id, other_id) if blocked else None

