"""Nodes per second of the robots' search on fixed positions, at each level's node limit.

    nice -n 10 .venv/bin/python bench/search_speed.py [--games 4] [--plies 12,36,60]
        [--seed 0] [--levels 1,2,3] [--repeat 1]

The positions come from seeded random games (the same positions every run). Each level
searches each position with no time limit, so that its node limit alone stops it and the
result (move, value, depth, nodes) is the same on any machine and for any change that keeps
the search's results; a digest of all results is printed to compare two copies of the code.
Prints, for each level, the nodes and seconds and the median nodes per second. ``--repeat``
searches each position that many times and keeps the fastest (less noise on a shared
machine).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import time

from pbm_emergo.robot.search import think
from pbm_emergo.rules import Game, Position


def positions(games: int, plies: list[int], seed: int) -> list[Position]:
    """Positions after ``plies`` uniformly random moves, from ``games`` seeded games; those
    with a single legal move or none (nothing to search) are skipped."""
    found = []
    for number in range(games):
        rng = random.Random(seed * 1_000_003 + number)
        game = Game()
        for ply in range(max(plies) + 1):
            if game.outcome() is not None:
                break
            if ply in plies and len(game.position.legal_moves()) > 1:
                found.append(game.position)
            game.play(rng.choice(game.position.legal_moves()))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--plies", default="12,36,60", help="plies into each random game")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--levels", default="1,2,3")
    parser.add_argument("--repeat", type=int, default=1, help="keep the fastest of N searches")
    args = parser.parse_args(argv)
    plies = [int(p) for p in args.plies.split(",")]
    levels = [int(level) for level in args.levels.split(",")]
    print(f"command: .venv/bin/python bench/search_speed.py {' '.join(argv or sys.argv[1:])}"
          .rstrip())
    import pbm_emergo

    print(f"python {sys.version.split()[0]}, code from {pbm_emergo.__file__}")
    found = positions(args.games, plies, args.seed)
    print(f"{len(found)} positions ({args.games} games, plies {args.plies})", flush=True)
    digest = hashlib.sha256()
    for level in levels:
        rates = []
        total_nodes = 0
        total_seconds = 0.0
        for index, position in enumerate(found):
            best = float("inf")
            for _ in range(args.repeat):
                started = time.perf_counter()
                decision = think(position, level, 1e9, seed=index)
                best = min(best, time.perf_counter() - started)
            result = f"{level} {index} {decision.move} {decision.score} {decision.depth} " \
                     f"{decision.nodes}"
            digest.update(result.encode() + b"\n")
            total_nodes += decision.nodes
            total_seconds += best
            rates.append(decision.nodes / best)
        print(f"robot{level}: {total_nodes} nodes in {total_seconds:.2f} s, "
              f"median {statistics.median(rates):,.0f} nodes/s "
              f"(range {min(rates):,.0f}-{max(rates):,.0f})", flush=True)
    print(f"results digest (move, value, depth, nodes of every search): "
          f"{digest.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
