"""Write tests/rules/data/perft.json: move counts from the start position to depth 4.

Run from the repository root::

    .venv/bin/python -m tests.rules.make_perft [--depth 4]

Every count is computed twice, by the slow reference generator (tests/rules/reference.py)
and by the engine, per first move ("divide"); the file is written only if they agree.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pbm_emergo.rules import Position

from .reference import RefPosition
from .reference import perft as reference_perft

DATA = Path(__file__).parent / "data" / "perft.json"


def engine_perft(pos: Position, depth: int) -> int:
    """Number of move sequences of length `depth` from `pos`, by the engine."""
    if depth == 0:
        return 1
    legal = pos.legal_moves()
    if depth == 1:
        return len(legal)
    return sum(engine_perft(pos.play(m), depth - 1) for m in legal)


def engine_divide(pos: Position, depth: int) -> dict[str, int]:
    return {str(m): engine_perft(pos.play(m), depth - 1) for m in pos.legal_moves()}


def reference_divide(pos: RefPosition, depth: int) -> dict[str, int]:
    return {m: reference_perft(pos.play(m), depth - 1) for m in pos.legal_moves()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=4)
    args = parser.parse_args(argv)
    table: dict[str, object] = {"start": Position().to_text(), "perft": {}, "divide": {}}
    for depth in range(1, args.depth + 1):
        ref = reference_divide(RefPosition(), depth)
        eng = engine_divide(Position(), depth)
        if ref != eng:
            diff = {m: (ref.get(m), eng.get(m)) for m in sorted(set(ref) | set(eng))
                    if ref.get(m) != eng.get(m)}
            print(f"depth {depth}: reference and engine disagree (ref, engine): {diff}")
            return 1
        total = sum(ref.values())
        print(f"perft({depth}) = {total}")
        table["perft"][str(depth)] = total  # type: ignore[index]
        table["divide"][str(depth)] = ref  # type: ignore[index]
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
