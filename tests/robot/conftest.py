"""Fixtures of the robot tests."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pbm_emergo.robot import search


@pytest.fixture
def search_clock_stands_still(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search's clock stands still, so the node allowance alone ends every search, as it
    does on any machine fast enough (``NODES_PER_BUDGET_SECOND`` is well below the search's
    speed). Without it a busy machine can make the time budget, a safety stop, end a search
    early: another move, and a test of repeatable games fails."""
    monkeypatch.setattr(search, "time", SimpleNamespace(perf_counter=lambda: 0.0))
