"""Write tests/rules/data/games.json: whole games that end in each way RULES.md names.

Run from the repository root::

    .venv/bin/python -m tests.rules.make_games [--seeds 400]

Games are random (seeded, uniform over the legal moves) and played and judged by the slow
reference generator only, so the engine's Game is checked against an independent verdict.
For each ending (eliminated, blocked, threefold repetition) the shortest game found among
the seeds is kept. "No legal entry" does not come up in random play, so that game is
hand-made (below) and only checked here by the reference.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

from .reference import RefPosition, opponent

DATA = Path(__file__).parent / "data" / "games.json"

# 23 single-man entries without a capture. Black then holds one man, White none, and every
# vacant cell could be captured at once by White (who attacks nothing): Black, to move, has
# no legal entry. Found by a local search for such a final position, then a depth-first
# search for an order of entries legal at every ply.
NO_LEGAL_ENTRY_GAME = [
    "e9", "b6", "d5", "c7", "d8", "i5", "c3", "h5", "g6", "b4", "f6", "f8",
    "g7", "c6", "e4", "h4", "e6", "d2", "a5", "f2", "e1", "h6", "g3",
]


def replay(moves: list[str]) -> tuple[str | None, str]:
    """Replay a finished game by the reference: the winner and the reason it ended."""
    pos = RefPosition()
    seen = Counter([pos.key()])
    for move in moves:
        assert move in pos.legal_moves(), move
        pos = pos.play(move)
        seen[pos.key()] += 1
        assert seen[pos.key()] < 3
    reason = pos.loss_reason()
    assert reason is not None, "the game is not over"
    return opponent(pos.to_move), reason


def play_out(seed: int, max_plies: int = 1000) -> tuple[list[str], str | None, str]:
    """A random game: its moves, the winner (None for a draw) and the reason it ended."""
    rng = random.Random(seed)
    pos = RefPosition()
    seen = Counter([pos.key()])
    played: list[str] = []
    while len(played) < max_plies:
        legal = pos.legal_moves()
        if not legal:
            reason = pos.loss_reason()
            assert reason is not None
            return played, opponent(pos.to_move), reason
        move = rng.choice(legal)
        played.append(move)
        pos = pos.play(move)
        seen[pos.key()] += 1
        if seen[pos.key()] == 3:
            return played, None, "threefold repetition"
    raise RuntimeError(f"seed {seed}: no end after {max_plies} plies")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=400)
    args = parser.parse_args(argv)
    best: dict[str, dict[str, object]] = {}
    for seed in range(args.seeds):
        moves, winner, reason = play_out(seed)
        kept = best.get(reason)
        if kept is None or len(moves) < len(kept["moves"]):  # type: ignore[arg-type]
            best[reason] = {"seed": seed, "winner": winner, "reason": reason, "moves": moves}
    winner, reason = replay(NO_LEGAL_ENTRY_GAME)
    assert reason == "no legal entry", reason
    best[reason] = {"seed": None, "winner": winner, "reason": reason, "moves": NO_LEGAL_ENTRY_GAME}
    for reason, game in sorted(best.items()):
        print(f"{reason}: seed {game['seed']}, {len(game['moves'])} plies")  # type: ignore[arg-type]
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(best, indent=1, sort_keys=True) + "\n")
    print(f"wrote {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
