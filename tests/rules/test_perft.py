"""Move counts (perft) against tests/rules/data/perft.json, with a per-move breakdown.

The table was written by ``python -m tests.rules.make_perft``, which computes it with both
the reference generator and the engine and writes it only when they agree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbm_emergo.rules import Position

from .make_perft import engine_divide

TABLE = json.loads((Path(__file__).parent / "data" / "perft.json").read_text())


def test_the_table_starts_from_the_start_position() -> None:
    assert TABLE["start"] == Position().to_text()
    assert TABLE["perft"]["1"] == 40
    for depth, total in TABLE["perft"].items():
        assert sum(TABLE["divide"][depth].values()) == total


def check(name: str, pos: Position, depth: int, expected: dict[str, int]) -> None:
    got = engine_divide(pos, depth)
    if got != expected:
        lines = [
            f"{name}, perft({depth}): expected {sum(expected.values())}, got {sum(got.values())}",
            f"{'move':<20} {'expected':>10} {'engine':>10}",
        ]
        for move in sorted(set(expected) | set(got)):
            want, have = expected.get(move), got.get(move)
            mark = "" if want == have else "   <-- differs"
            lines.append(f"{move:<20} {want!s:>10} {have!s:>10}{mark}")
        pytest.fail("\n".join(lines))


@pytest.mark.parametrize("depth", sorted(TABLE["perft"], key=int))
def test_perft_from_the_start(depth: str) -> None:
    check("start", Position(), int(depth), TABLE["divide"][depth])


@pytest.mark.parametrize("name", sorted(TABLE["positions"]))
def test_perft_from_later_positions(name: str) -> None:
    entry = TABLE["positions"][name]
    check(name, Position.from_text(entry["text"]), entry["depth"], entry["divide"])
