"""The two capture searches agree: the plain one for short captures, the memoised one it
hands over to when a position has many routes through the same cells."""

from __future__ import annotations

import pytest

from pbm_emergo.rules import Position
from pbm_emergo.rules import position as engine

from .helpers import random_game, to_reference

# Positions with many routes (bench/rules.py builds them to make the search work hard).
MANY_ROUTES = [
    "o 0 0 30 c4=x1,c6=x1,d3=x1,d5=x1,d7=x1,e4=x1,e5=o1,e6=x1,f3=x1,f5=x1,f7=x1,g4=x1,g6=x1",
    "o 0 0 30 c4=x1,c6=x1,d3=x1,d5=x2,d7=x1,e4=x2,e5=o1,f3=x1,f5=x1,g4=x1",
    "o 0 0 30 c5=x2,d4=x2,d6=x2,e4=o1,e5=x3,f4=x1,f6=x1,g5=x1",
    "o 0 0 30 c4=x1,c6=x1,d3=x1o3,d5=x1,d6=o1,d7=x1o2,e4=x1,e5=o1,e6=x1o1,f2=o4,f3=x1,"
    "f5=x1,f7=x1,g4=x1,g6=x1",
]


def moves_with_budget(text: str, budget: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(engine, "_PLAIN_NODES", budget)
    pos = Position.from_text(text)
    return [str(m) for m in pos.legal_moves()]


@pytest.mark.parametrize("text", MANY_ROUTES)
def test_memoised_and_plain_search_agree(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = moves_with_budget(text, 10**9, monkeypatch)
    memo = moves_with_budget(text, 0, monkeypatch)
    default = moves_with_budget(text, engine._PLAIN_NODES, monkeypatch)
    assert plain == memo == default
    assert plain == to_reference(Position.from_text(text)).legal_moves()


@pytest.mark.parametrize("seed", range(3))
def test_memoised_search_alone_on_random_games(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = [(pos.to_text(), [str(m) for m in pos.legal_moves()]) for pos in random_game(seed)]
    monkeypatch.setattr(engine, "_PLAIN_NODES", 0)
    for text, moves in expected:
        assert [str(m) for m in Position.from_text(text).legal_moves()] == moves
