"""The robots' ladder: ratings on the Elo scale from robot-against-robot games, and the measured
table the server shows next to the robots' own ratings. Pure: standard library only.

The fit is Bradley-Terry: player *i* beats player *j* with probability
``1 / (1 + 10 ** ((r_j - r_i) / 400))`` (the Elo scale), draws counting half a win to each side.
The ratings are the maximum a posteriori under a weak prior: one virtual draw added to every
pair that played, so that a pair with a 100% score still gives finite ratings (a clean sweep
over n games reads as n + 0.5 out of n + 1). One player, the anchor (the uniformly random
mover), is fixed at 0. The 95% intervals are Laplace's: from the inverse of the Hessian of the
log-posterior at its maximum (the anchor has none: the others' intervals are relative to it).
``bench/robot.py`` plays the games and prints the table that :data:`LADDER` holds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

#: Natural units (log-odds) per Elo point.
_SCALE = math.log(10) / 400
#: 95% two-sided normal quantile.
Z95 = 1.959964
#: The virtual draws added to every pair that played (the prior).
PRIOR_DRAWS = 1.0


@dataclass(frozen=True)
class Rating:
    """A fitted rating on the Elo scale and its 95% interval."""

    rating: float
    low: float
    high: float


def win_probability(difference: float) -> float:
    """The expected score of a player rated ``difference`` Elo points above the opponent."""
    return 1 / (1 + 10 ** (-difference / 400))


def fit(
    scores: Mapping[tuple[str, str], tuple[float, int]],
    anchor: str,
    prior_draws: float = PRIOR_DRAWS,
) -> dict[str, Rating]:
    """Bradley-Terry ratings (Elo scale, ``anchor`` at 0) with Laplace 95% intervals.

    ``scores`` maps a pair (A, B) to (A's points, games), a win 1 and a draw 0.5; a pair may
    come in either order, or both. ValueError when a player is not connected to the anchor by
    games, or a pair has more points than games.
    """
    players = sorted({p for pair in scores for p in pair} | {anchor})
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    # points[i][j]: i's points against j, prior included; games[i][j] likewise.
    points = [[0.0] * n for _ in range(n)]
    games = [[0.0] * n for _ in range(n)]
    for (a, b), (won, played) in scores.items():
        if a == b:
            raise ValueError(f"{a} cannot play itself")
        if played < 0 or not 0 <= won <= played:
            raise ValueError(f"{a} vs {b}: {won} points in {played} games")
        i, j = index[a], index[b]
        points[i][j] += won
        points[j][i] += played - won
        games[i][j] += played
        games[j][i] += played
    for i in range(n):
        for j in range(n):
            if games[i][j] > 0:
                points[i][j] += prior_draws / 2
                games[i][j] += prior_draws
    free = [i for i in range(n) if players[i] != anchor]
    _require_connected(players, games, index[anchor])
    theta = [0.0] * n

    def log_posterior(values: list[float]) -> float:
        total = 0.0
        for i in range(n):
            for j in range(n):
                if points[i][j]:
                    total -= points[i][j] * math.log1p(math.exp(values[j] - values[i]))
        return total

    current = log_posterior(theta)
    for _ in range(100):
        gradient, hessian = _derivatives(theta, points, games, free)
        step = _solve([[-h for h in row] for row in hessian], gradient)
        size = 1.0
        while True:
            trial = list(theta)
            for k, i in enumerate(free):
                trial[i] += size * step[k]
            value = log_posterior(trial)
            if value >= current - 1e-12 or size < 1e-6:
                break
            size /= 2
        theta, improvement, current = trial, value - current, value
        if max((abs(s) * size for s in step), default=0.0) < 1e-10 or abs(improvement) < 1e-13:
            break
    _, hessian = _derivatives(theta, points, games, free)
    covariance = _inverse([[-h for h in row] for row in hessian])
    ratings = {anchor: Rating(0.0, 0.0, 0.0)}
    for k, i in enumerate(free):
        rating = theta[i] / _SCALE
        half = Z95 * math.sqrt(max(covariance[k][k], 0.0)) / _SCALE
        ratings[players[i]] = Rating(rating, rating - half, rating + half)
    return ratings


def _derivatives(
    theta: list[float], points: list[list[float]], games: list[list[float]], free: list[int]
) -> tuple[list[float], list[list[float]]]:
    """The gradient and Hessian of the log-posterior over the free players."""
    n = len(theta)
    gradient_all = [0.0] * n
    hessian_all = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i == j or not games[i][j]:
                continue
            p = 1 / (1 + math.exp(theta[j] - theta[i]))
            gradient_all[i] += points[i][j] - games[i][j] * p
            weight = games[i][j] * p * (1 - p)
            hessian_all[i][i] -= weight
            hessian_all[i][j] += weight
    gradient = [gradient_all[i] for i in free]
    hessian = [[hessian_all[i][j] for j in free] for i in free]
    return gradient, hessian


def _require_connected(players: list[str], games: list[list[float]], anchor: int) -> None:
    reached, frontier = {anchor}, [anchor]
    while frontier:
        i = frontier.pop()
        for j, played in enumerate(games[i]):
            if played and j not in reached:
                reached.add(j)
                frontier.append(j)
    missing = [players[i] for i in range(len(players)) if i not in reached]
    if missing:
        raise ValueError(f"no games connect {', '.join(missing)} to {players[anchor]}")


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix``⁻¹ ``vector`` by Gaussian elimination with partial pivoting."""
    n = len(vector)
    rows = [list(matrix[i]) + [vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-300:
            raise ValueError("the ratings are not determined by the games")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col and rows[r][col]:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col], strict=True)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [_solve(matrix, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    return [[columns[c][r] for c in range(n)] for r in range(n)]


# ---------------------------------------------------------------------- the measured table


@dataclass(frozen=True)
class LadderEntry:
    """A robot account's ladder rating (Elo scale, the random mover at 0), 95% interval."""

    rating: int
    low: int
    high: int


#: What :data:`LADDER` was measured from: the machine and the games.
LADDER_SOURCE = (
    "2 CPUs, python 3.11.7, budget 10 s a move, "
    "games a pair: random-robot1 200, robot1-robot2 200, robot2-robot3 60, robot3-robot3/4 100, "
    "robot2-robot3/4 30"
)
LADDER_COMMAND = (
    "python bench/robot.py --random-robot1 200 --robot1-robot2 200 --robot2-robot3 60 "
    "--robot3-quarter 100 --pair 2 3/4 30 --jobs 2"
)
#: The robots' ladder ratings, as printed by ``bench/robot.py``.
LADDER: dict[str, LadderEntry] = {
    "robot1": LadderEntry(850, 570, 1129),
    "robot2": LadderEntry(1699, 1304, 2094),
    "robot3": LadderEntry(2332, 1893, 2770),
}
#: The one-line explanation shown with the ladder ratings.
LADDER_EXPLANATION = (
    "Ladder Elo: the robots' strength measured in games robot against robot, on the Elo "
    "scale with the random mover at 0 (95% interval in brackets); it does not move with "
    "their games here and is not comparable with the players' ratings."
)


def ladder_text(userid: str) -> str | None:
    """``ladder Elo 1420 (1350-1490)`` for a robot account on the ladder, else None."""
    entry = LADDER.get(userid.lower())
    if entry is None:
        return None
    return f"ladder Elo {entry.rating} ({entry.low}-{entry.high})"


def ladder_texts(userids: Iterable[str]) -> dict[str, str]:
    """:func:`ladder_text` of each of ``userids`` that is a robot account on the ladder."""
    found = {userid: ladder_text(userid) for userid in userids}
    return {userid: text for userid, text in found.items() if text is not None}
