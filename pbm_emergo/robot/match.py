"""Robot against robot (or a uniformly random mover) from the start position: the games, the
score with a confidence interval, and the time per move. Pure: the caller prints."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

from pbm_emergo.robot.search import think
from pbm_emergo.rules import Game, Move

RANDOM = "random"
#: A game still going after this many plies is scored a draw (random movers can wander).
MAX_PLIES = 1000


def player_name(player: str) -> str:
    return player if player == RANDOM else f"robot{player}"


def parse_player(text: str) -> str:
    """``1``, ``2``, ``3``, ``robot1``.. or ``random``; ValueError otherwise."""
    word = text.strip().lower().removeprefix("robot")
    if word in ("1", "2", "3", RANDOM):
        return word
    raise ValueError(f"{text!r} is not a player: use 1, 2, 3 (or robot1..robot3) or random")


@dataclass
class SideStats:
    """Time and nodes of one player's moves over a match."""

    times: list[float] = field(default_factory=list)
    nodes: int = 0
    search_seconds: float = 0.0

    def add(self, seconds: float, nodes: int) -> None:
        self.times.append(seconds)
        self.nodes += nodes
        self.search_seconds += seconds

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.search_seconds if self.search_seconds else 0.0


@dataclass(frozen=True)
class GameResult:
    number: int
    a_white: bool
    #: 1 when A won, 0.5 a draw, 0 when B won.
    score_a: float
    reason: str
    plies: int


@dataclass
class MatchResult:
    a: str
    b: str
    games: list[GameResult] = field(default_factory=list)
    stats: dict[str, SideStats] = field(default_factory=dict)

    @property
    def score_a(self) -> float:
        return sum(g.score_a for g in self.games) / len(self.games) if self.games else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson's 95% interval of A's score (draws count half)."""
        n = len(self.games)
        if not n:
            return 0.0, 1.0
        p = self.score_a
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)


def _mover(
    player: str, budget_s: float, seed: int, stats: SideStats
) -> Callable[[Game], Move]:
    if player == RANDOM:
        rng = random.Random(seed)
        return lambda game: rng.choice(game.position.legal_moves())

    def robot(game: Game) -> Move:
        history = [p.zobrist() for p in game.positions[:-1]]
        decision = think(
            game.position, int(player), budget_s, seed,
            history=history, blocked=game.blocked,
        )
        stats.add(decision.seconds, decision.nodes)
        return decision.move

    return robot


def play_match(
    a: str,
    b: str,
    games: int,
    budget_s: float = 10.0,
    seed: int = 0,
    on_game: Callable[[GameResult], None] | None = None,
) -> MatchResult:
    """Play ``games`` games of ``a`` against ``b`` (levels "1".."3" or "random"), A White
    in the even-numbered games; game ``i`` uses seed ``seed + i``."""
    result = MatchResult(a, b, stats={"a": SideStats(), "b": SideStats()})
    for i in range(games):
        a_white = i % 2 == 0
        game = Game()
        move_a = _mover(a, budget_s, seed + i, result.stats["a"])
        move_b = _mover(b, budget_s, seed + i + 7919, result.stats["b"])
        white, black = (move_a, move_b) if a_white else (move_b, move_a)
        while game.outcome() is None and len(game.moves) < MAX_PLIES:
            mover = white if game.position.side_index == 0 else black
            game.play(mover(game))
        outcome = game.outcome()
        if outcome is None:
            score, reason = 0.5, f"no result after {MAX_PLIES} plies"
        else:
            reason = str(outcome.termination)
            if outcome.winner is None:
                score = 0.5
            else:
                score = 1.0 if (outcome.winner == "white") == a_white else 0.0
        record = GameResult(i + 1, a_white, score, reason, len(game.moves))
        result.games.append(record)
        if on_game is not None:
            on_game(record)
    return result


def describe(result: MatchResult) -> list[str]:
    """The match as lines of text: the score, its interval, and the time per move."""
    a, b = player_name(result.a), player_name(result.b)
    wins = sum(g.score_a == 1 for g in result.games)
    draws = sum(g.score_a == 0.5 for g in result.games)
    losses = len(result.games) - wins - draws
    low, high = result.interval()
    lines = [
        f"{a} vs {b}: {len(result.games)} games, {a} +{wins} ={draws} -{losses}, "
        f"score {100 * result.score_a:.1f}% (95% interval {100 * low:.1f}%-{100 * high:.1f}%)"
    ]
    for key, name in (("a", a), ("b", b)):
        stats = result.stats[key]
        if not stats.times:
            continue
        times = stats.times
        lines.append(
            f"  {name}: {len(times)} moves, mean {statistics.fmean(times):.3f} s, median "
            f"{statistics.median(times):.3f} s, worst {max(times):.3f} s a move; "
            f"{stats.nodes_per_second:,.0f} nodes/s"
        )
    return lines
