"""Write tests/rules/data/perft.json: move counts to depth 4 from the start and a few more.

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

from .helpers import to_reference
from .reference import RefPosition
from .reference import perft as reference_perft

DATA = Path(__file__).parent / "data" / "perft.json"

# Positions past the opening, where captures, liberations and steps come in: three from a
# random game (seed 7: ply 16, still entering; ply 24 and 32, stepping) and the worked
# example of RULES.md. Each is counted to depth 4.
POSITIONS: dict[str, str] = {
    "random game, ply 16": (
        "o 4 5 16 b4=o1,b6=x1,c5=o1,c7=x1,d2=x1,d4=x1o1,e6=o1,e8=x1,f3=o1,f5=o1,f6=o1,f7=x1,"
        "f8=x1,h6=o1"
    ),
    "random game, ply 24": (
        "o 0 0 24 a5=o1,b4=o1,b6=x1,c3=o1,c4=o1,c5=o1,c6=x2,c7=x1,d2=x1,d4=x1o1,e4=x1,e6=o1,"
        "e8=x1,f3=o1,f5=o1,f6=o1,f7=x1,f8=x1,g5=o1,g7=x1,h4=x1,h6=o1"
    ),
    "random game, ply 32": (
        "o 0 0 32 a5=o1,b4=o1,b6=x1,c5=x1,c6=x1o2,c7=x1,d2=x1,d4=o1,e4=o1x1,e6=x1o1,f3=o1,"
        "f7=x1,f8=x1,g4=x1o3,g7=x1,h4=x1,h6=o1"
    ),
    "worked example": "o 0 0 30 c5=x1,d6=x1,e5=x1,f4=o4,g4=o1,h4=x2",
}


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
    table["positions"] = {}
    for name, text in POSITIONS.items():
        ref = reference_divide(to_reference(Position.from_text(text)), args.depth)
        eng = engine_divide(Position.from_text(text), args.depth)
        if ref != eng:
            print(f"{name}: reference and engine disagree")
            return 1
        print(f"{name}: perft({args.depth}) = {sum(ref.values())}")
        table["positions"][name] = {  # type: ignore[index]
            "text": text, "depth": args.depth, "divide": ref,
        }
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
