"""Blocking on values: what block and unblock change, and when they are refused."""

from __future__ import annotations

from datetime import UTC, datetime

from pbm_emergo.game.blocks import (
    BlockAdded,
    BlockRemoved,
    block_change,
    block_refusal,
)

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_block_adds_once_and_unblock_removes() -> None:
    assert block_change(1, 2, NOW, on=True, blocked=False) == BlockAdded(1, 2, NOW)
    assert block_change(1, 2, NOW, on=True, blocked=True) is None
    assert block_change(1, 2, NOW, on=False, blocked=True) == BlockRemoved(1, 2)
    assert block_refusal(1, 2, on=True, blocked=True) is None


def test_blocking_oneself_or_unblocking_nobody_is_refused() -> None:
    assert str(block_refusal(1, 1, on=True, blocked=False)) == "You cannot block yourself."
    assert str(block_refusal(1, 2, on=False, blocked=False)) == "You do not block that player."
    assert block_refusal(1, 2, on=False, blocked=True) is None
