"""Move counts from the start position against tests/rules/data/perft.json.

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


@pytest.mark.parametrize("depth", sorted(TABLE["perft"], key=int))
def test_perft(depth: str) -> None:
    expected: dict[str, int] = TABLE["divide"][depth]
    got = engine_divide(Position(), int(depth))
    if got != expected:
        lines = [f"perft({depth}): expected {sum(expected.values())}, got {sum(got.values())}"]
        lines.append(f"{'move':<8} {'expected':>10} {'engine':>10}")
        for move in sorted(set(expected) | set(got)):
            want, have = expected.get(move), got.get(move)
            mark = "" if want == have else "   <-- differs"
            lines.append(f"{move:<8} {want!s:>10} {have!s:>10}{mark}")
        pytest.fail("\n".join(lines))
