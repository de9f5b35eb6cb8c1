"""Finding move sequences with the rules engine, instead of hard-coding long lists.

Each search plays seeded random games (so the result is the same on every run) and keeps
the shortest game that ends the way a test needs; the engine checks every move, and the
tests replay the sequence through the server, which checks it again.
"""

from __future__ import annotations

import random
from functools import cache

from pbm_emergo.rules import Game, Move, Termination


def _playout(seed: int, *, shuffle: bool, limit: int = 300) -> Game:
    rng = random.Random(seed)
    game = Game()
    while game.outcome() is None and len(game.moves) < limit:
        legal = game.position.legal_moves()
        move = rng.choice(legal)
        if shuffle and len(game.moves) >= 2:
            # Step straight back where the same side came from, if that is legal: this
            # makes positions repeat.
            last = game.moves[-2]
            back = (
                Move.from_text(f"{last.cells[-1]}-{last.cells[0]}") if last.kind == "step" else None
            )
            if back is not None and back in legal:
                move = back
        game.play(move)
    return game


# The seed of the shortest game of the first 400 that ends each way (found by
# shortest_game_ending_by; each worker of a parallel run would search again otherwise).
SHORTEST_SEEDS = {
    Termination.ELIMINATED: 184,
    Termination.BLOCKED: 14,
    Termination.REPETITION: 70,
}


def shortest_game_ending_by(reason: str, seeds: int = 400) -> tuple[int, tuple[str, ...]]:
    """The seed and moves of the shortest seeded random game that ends by ``reason``."""
    best: tuple[int, tuple[str, ...]] | None = None
    for seed in range(seeds):
        game = _playout(seed, shuffle=reason == Termination.REPETITION)
        outcome = game.outcome()
        if outcome is not None and outcome.termination == reason:
            moves = tuple(str(m) for m in game.moves)
            if best is None or len(moves) < len(best[1]):
                best = (seed, moves)
    assert best is not None, f"no game ending by {reason} in {seeds} seeds"
    return best


@cache
def game_ending_by(reason: str) -> tuple[str, ...]:
    """A short seeded random game (as canonical moves) that ends by ``reason``."""
    game = _playout(SHORTEST_SEEDS[reason], shuffle=reason == Termination.REPETITION)
    outcome = game.outcome()
    assert outcome is not None and outcome.termination == reason, (reason, outcome)
    return tuple(str(m) for m in game.moves)


def elimination_game() -> tuple[str, ...]:
    return game_ending_by(Termination.ELIMINATED)


def blocked_game() -> tuple[str, ...]:
    return game_ending_by(Termination.BLOCKED)


def repetition_game() -> tuple[str, ...]:
    return game_ending_by(Termination.REPETITION)


@cache
def capture_position() -> tuple[tuple[str, ...], int]:
    """Moves that reach a position where the side to move must capture, and the size."""
    for seed in range(100):
        rng = random.Random(seed)
        game = Game()
        while game.outcome() is None:
            if game.position.capture_size() > 0 and game.position.ply > 4:
                return tuple(str(m) for m in game.moves), game.position.capture_size()
            game.play(rng.choice(game.position.legal_moves()))
    raise AssertionError("no capture position found")
