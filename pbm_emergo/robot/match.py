"""Robot against robot (or a uniformly random mover): the games, the score with a confidence
interval, and the time per move. Pure: the caller prints.

Games come in pairs: both games of a pair start from the same opening, a few seeded random
plies from the start position, with each player White once, so that the advantages of a
colour and of an opening cancel. Without openings, two robots without noise would play the
same game every time.

A player is ``random``, a robot level ``1``..``3``, or a level at a fraction of the time
budget: ``3/4`` is robot3 with a quarter of the budget (its node allowance shrinks with it,
see :meth:`pbm_emergo.robot.search.Level.node_allowance`).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

from pbm_emergo.robot.search import LEVELS, think
from pbm_emergo.rules import Game, Move

RANDOM = "random"
#: A game still going after this many plies is scored a draw (random movers can wander).
MAX_PLIES = 1000
#: Random plies that open each pair of games.
OPENING_PLIES = 4


def player_name(player: str) -> str:
    return player if player == RANDOM else f"robot{player}"


def parse_player(text: str) -> str:
    """``1``, ``2``, ``3``, ``robot1``.., ``random``, or a level with a divisor of the budget
    (``3/4``, ``robot3/4``); ValueError otherwise."""
    word = text.strip().lower().removeprefix("robot")
    if word == RANDOM:
        return word
    level, _, divisor = word.partition("/")
    if level.isdigit() and int(level) in LEVELS and (
        not divisor or (divisor.isdigit() and int(divisor) >= 1)
    ):
        return f"{int(level)}/{int(divisor)}" if divisor else str(int(level))
    raise ValueError(
        f"{text!r} is not a player: use 1, 2, 3 (or robot1..robot3), a level at a fraction "
        "of the budget (3/4: a quarter) or random"
    )


def player_level(player: str) -> int:
    """The robot level of a player (ValueError for the random mover)."""
    if player == RANDOM:
        raise ValueError("the random mover has no level")
    return int(player.partition("/")[0])


def player_budget(player: str, budget_s: float) -> float:
    """The time budget a move of ``player`` gets when the match's budget is ``budget_s``."""
    divisor = player.partition("/")[2]
    return budget_s / int(divisor) if divisor else budget_s


def opening(seed: int, plies: int = OPENING_PLIES) -> list[Move]:
    """``plies`` seeded uniformly random moves from the start position (fewer if the game
    would end)."""
    rng = random.Random(f"opening {seed}")
    game = Game()
    for _ in range(plies):
        game.play(rng.choice(game.position.legal_moves()))
        if game.outcome() is not None:
            return game.moves[:-1]
    return list(game.moves)


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

    def merge(self, other: SideStats) -> None:
        self.times += other.times
        self.nodes += other.nodes
        self.search_seconds += other.search_seconds


@dataclass(frozen=True)
class GameResult:
    number: int
    a_white: bool
    #: 1 when A won, 0.5 a draw, 0 when B won.
    score_a: float
    reason: str
    #: Plies played, the opening's included.
    plies: int
    #: The game's moves in notation, the opening's first.
    moves: tuple[str, ...] = ()


@dataclass
class PlayedGame:
    """One game and the time and nodes of each side's moves in it (the opening's not)."""

    result: GameResult
    a: SideStats
    b: SideStats


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
        return wilson(self.score_a, len(self.games), z)

    def add(self, played: PlayedGame) -> None:
        self.games.append(played.result)
        self.stats.setdefault("a", SideStats()).merge(played.a)
        self.stats.setdefault("b", SideStats()).merge(played.b)


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's interval (95% by default) of a score ``p`` over ``n`` games."""
    if not n:
        return 0.0, 1.0
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _mover(
    player: str, budget_s: float, seed: int, stats: SideStats
) -> Callable[[Game], Move]:
    if player == RANDOM:
        rng = random.Random(seed)
        return lambda game: rng.choice(game.position.legal_moves())
    level, budget = player_level(player), player_budget(player, budget_s)

    def robot(game: Game) -> Move:
        history = [p.zobrist() for p in game.positions[:-1]]
        decision = think(
            game.position, level, budget, seed,
            history=history, blocked=game.blocked,
        )
        stats.add(decision.seconds, decision.nodes)
        return decision.move

    return robot


def game_opening(number: int, seed: int = 0, plies: int = OPENING_PLIES) -> list[Move]:
    """The opening of game ``number`` (from 1) of a match: games 2k-1 and 2k share one."""
    return opening(seed * 1_000_003 + (number - 1) // 2, plies)


def play_game(
    a: str,
    b: str,
    number: int,
    budget_s: float = 10.0,
    seed: int = 0,
    opening_plies: int = OPENING_PLIES,
) -> PlayedGame:
    """Game ``number`` (from 1) of a match of ``a`` against ``b``: A is White in the odd-numbered
    games; games 2k-1 and 2k start from the same opening (seeded by ``seed`` and k), and game
    ``number`` seeds its players with ``seed + number - 1``. The same arguments give the same
    game (unless a robot's time budget runs out before its node allowance), so games can be
    played in any order, or in parallel."""
    i = number - 1
    a_white = i % 2 == 0
    stats_a, stats_b = SideStats(), SideStats()
    game = Game()
    for move in game_opening(number, seed, opening_plies):
        game.play(move)
    move_a = _mover(a, budget_s, seed + i, stats_a)
    move_b = _mover(b, budget_s, seed + i + 7919, stats_b)
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
    record = GameResult(
        number, a_white, score, reason, len(game.moves), tuple(str(m) for m in game.moves)
    )
    return PlayedGame(record, stats_a, stats_b)


def play_match(
    a: str,
    b: str,
    games: int,
    budget_s: float = 10.0,
    seed: int = 0,
    on_game: Callable[[GameResult], None] | None = None,
    opening_plies: int = OPENING_PLIES,
) -> MatchResult:
    """Play ``games`` games of ``a`` against ``b`` (see :func:`play_game`): pairs of games from
    the same opening, A White in the first of each pair."""
    result = MatchResult(a, b, stats={"a": SideStats(), "b": SideStats()})
    for number in range(1, games + 1):
        played = play_game(a, b, number, budget_s, seed, opening_plies)
        result.add(played)
        if on_game is not None:
            on_game(played.result)
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
        stats = result.stats.get(key)
        if stats is None or not stats.times:
            continue
        times = stats.times
        lines.append(
            f"  {name}: {len(times)} moves, mean {statistics.fmean(times):.3f} s, median "
            f"{statistics.median(times):.3f} s, worst {max(times):.3f} s a move; "
            f"{stats.nodes_per_second:,.0f} nodes/s"
        )
    return lines
