"""The robots' search: alpha-beta (negamax) with iterative deepening and a transposition table.

Why alpha-beta and not Monte Carlo tree search: Emergo is tactical. Captures are compulsory
and must be maximal, so most of a game's swings are forced sequences a few plies deep that an
exhaustive search sees exactly and random playouts see only by luck; and a playout costs a
whole game (about 120 plies at a few microseconds each in pure Python), so MCTS would get a
few thousand playouts a move where alpha-beta gets tens of thousands of positions. Material
counts are a good guide in Emergo, which suits a static evaluation.

* **Quiescence**: captures are compulsory, so a position where the side to move must capture
  is never evaluated statically; the search follows the captures (all moves there are
  captures) until a quiet position, at most :data:`QUIESCENCE_PLIES` plies beyond the depth.
* **Forced moves** (a single legal move) do not use up depth.
* **Transposition table** keyed by the position's Zobrist hash (kept up to date by the rules
  engine), holding depth, bound, score and the best move; its move is tried first.
* **Move ordering**: the table's move, then two killer moves a ply, then the history table.
* **Repetition**: a position already seen in the game or on the search path counts as a draw,
  so a robot that is ahead makes progress instead of repeating.
* **Limits**: a node allowance per move (makes the choice deterministic on any machine) and a
  time budget as a safety stop; when either runs out the best move of the deepest finished
  iteration is played (or a better one the unfinished iteration has already proven). The
  strong level's allowance grows with its budget (:data:`NODES_PER_BUDGET_SECOND`), so that
  more time means a stronger robot without the clock deciding the move.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from dataclasses import dataclass

from pbm_emergo.robot.evaluate import FULL, MAN, MATERIAL, Weights, evaluate
from pbm_emergo.rules import Move, Position

#: A win: the side to move has a forced win; minus the plies it takes.
WIN = 1_000_000
INFINITY = 10 * WIN
QUIESCENCE_PLIES = 16
MAX_PLY = 128
_EXACT, _LOWER, _UPPER = 0, 1, 2
_TABLE_SIZE = 1 << 20  # entries; the table is emptied when full
#: The strong level's node allowance for each second of its time budget: the server's default
#: budget of 10 s gives 60,000 nodes. Well below the search's speed (50,000-130,000 nodes a
#: second), so the allowance, not the clock, ends the search on any ordinary machine.
NODES_PER_BUDGET_SECOND = 6_000


@dataclass(frozen=True, slots=True)
class Level:
    """How a robot searches: deepest iteration, node limit, noise and evaluation."""

    number: int
    max_depth: int
    #: Nodes a move may search, whatever the budget (0: :attr:`nodes_per_budget_second`).
    node_limit: int
    #: Seeded noise added to each root move's score, in hundredths of a man: weaker robots
    #: make mistakes and vary their play.
    noise: int
    weights: Weights
    #: When set, the node allowance is this many nodes for each second of the time budget
    #: instead of a fixed :attr:`node_limit`: the robot plays better with more time, and the
    #: same move for the same budget on any machine.
    nodes_per_budget_second: int = 0

    def node_allowance(self, budget_s: float) -> int:
        """The nodes a move may search with a time budget of ``budget_s`` seconds."""
        if self.nodes_per_budget_second:
            return max(1, round(self.nodes_per_budget_second * budget_s))
        return self.node_limit


LEVELS: dict[int, Level] = {
    1: Level(1, max_depth=1, node_limit=20_000, noise=80, weights=MATERIAL),
    2: Level(2, max_depth=3, node_limit=30_000, noise=10, weights=FULL),
    3: Level(
        3, max_depth=MAX_PLY, node_limit=0, noise=0, weights=FULL,
        nodes_per_budget_second=NODES_PER_BUDGET_SECOND,
    ),
}


@dataclass(frozen=True, slots=True)
class Decision:
    """A robot's choice and how it was found."""

    move: Move
    #: The move's value for the robot, in hundredths of a man (beyond +-WIN/2: a forced
    #: win or loss was found).
    score: int
    #: The deepest iteration finished.
    depth: int
    nodes: int
    seconds: float

    @property
    def lost(self) -> bool:
        """Whether the search proved that the robot loses whatever it plays."""
        return self.score <= -WIN // 2


class _OutOfTime(Exception):
    pass


class _Search:
    def __init__(
        self,
        level: Level,
        deadline: float,
        seen: set[int],
        blocked_draws: bool,
        node_limit: int | None = None,
    ) -> None:
        self.level = level
        self.weights = level.weights
        self.deadline = deadline
        self.node_limit = level.node_limit if node_limit is None else node_limit
        self.seen = seen
        self.blocked_draws = blocked_draws
        self.nodes = 0
        self.table: dict[int, tuple[int, int, int, int]] = {}
        # Moves are known by their path (grid cells), which is unique and cheap to hash.
        self.killers: list[list[tuple[int, ...]]] = [[(), ()] for _ in range(MAX_PLY + 1)]
        self.history: dict[tuple[int, ...], int] = {}
        # The node limit applies once the first iteration is done (so that there is a move
        # to play); the time budget always does.
        self.stoppable = False

    # ------------------------------------------------------------------ the tree

    def negamax(self, pos: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if (self.stoppable and self.nodes > self.node_limit) or (
            self.nodes & 255 == 0 and time.perf_counter() > self.deadline
        ):
            raise _OutOfTime
        key = pos.zobrist()
        if key in self.seen:
            return 0  # a repetition: treated as a draw
        # Half of the nodes are quiet leaves: they need no move list, only to know that
        # a move exists and none captures.
        if depth <= 0 and pos.is_quiet():
            return evaluate(pos, self.weights)
        moves = pos.legal_moves()
        if not moves:
            return self._no_move(pos, ply)
        capture = moves[0].kind == "capture"
        if depth <= 0 and (depth <= -QUIESCENCE_PLIES or ply >= MAX_PLY):
            return evaluate(pos, self.weights)
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            e_depth, bound, e_score, first = entry
            if e_depth >= depth:
                if bound == _EXACT:
                    return e_score
                if bound == _LOWER and e_score >= beta:
                    return e_score
                if bound == _UPPER and e_score <= alpha:
                    return e_score
        ordered = self._order(moves, first, ply) if len(moves) > 1 else [(0, moves[0])]
        # Forced moves and quiescence captures use no depth; other moves one ply.
        next_depth = depth if len(moves) == 1 and depth > 0 else depth - 1
        if ply >= MAX_PLY:
            next_depth = min(next_depth, 0)
        original_alpha = alpha
        best = -INFINITY
        best_index = 0
        self.seen.add(key)
        try:
            for index, move in ordered:
                score = -self.negamax(pos.play_legal(move), next_depth, -beta, -alpha, ply + 1)
                if score > best:
                    best = score
                    best_index = index
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if not capture:
                                self._remember_cutoff(move, depth, ply)
                            break
        finally:
            self.seen.discard(key)
        if best <= original_alpha:
            bound = _UPPER
        elif best >= beta:
            bound = _LOWER
        else:
            bound = _EXACT
        if len(self.table) >= _TABLE_SIZE:
            self.table.clear()
        self.table[key] = (depth, bound, best, best_index)
        return best

    def _no_move(self, pos: Position, ply: int) -> int:
        """The score of a position whose side to move has no legal move."""
        if self.blocked_draws:
            side = pos.side_index
            if pos.hands[side] or pos.cap_masks[side]:
                return 0
        return -WIN + ply

    def _order(self, moves: list[Move], first: int, ply: int) -> list[tuple[int, Move]]:
        """(index in ``moves``, move), best candidates first."""
        killer, second = self.killers[ply]
        history = self.history
        ranked = []
        for i, move in enumerate(moves):
            path = move.path
            if i == first:
                rank = 1 << 40
            elif path == killer:
                rank = 1 << 39
            elif path == second:
                rank = 1 << 38
            else:
                rank = history.get(path, 0)
            ranked.append((-rank, i, move))
        ranked.sort(key=_first_two)
        return [(i, move) for _, i, move in ranked]

    def _remember_cutoff(self, move: Move, depth: int, ply: int) -> None:
        killers = self.killers[ply]
        path = move.path
        if path != killers[0]:
            killers[1] = killers[0]
            killers[0] = path
        self.history[path] = self.history.get(path, 0) + depth * depth

    # ------------------------------------------------------------------ the root

    def root(
        self, pos: Position, rng: random.Random, started: float
    ) -> tuple[Move, int, int]:
        moves = pos.legal_moves()
        noise = self.level.noise
        jitter = {move: rng.randint(-noise, noise) if noise else 0 for move in moves}
        # Ties are broken by the seed: the root order is shuffled once.
        order = list(moves)
        rng.shuffle(order)
        best_move, best_score, done_depth = order[0], -INFINITY, 0
        key = pos.zobrist()
        self.seen.add(key)
        for depth in range(1, self.level.max_depth + 1):
            scores: dict[Move, int] = {}
            try:
                alpha = -INFINITY
                for move in order:
                    child = pos.play_legal(move)
                    if noise:
                        # Exact scores for every move, so that the noise compares values.
                        score = -self.negamax(child, depth - 1, -INFINITY, INFINITY, 1)
                    else:
                        score = -self.negamax(child, depth - 1, -INFINITY, -alpha, 1)
                    scores[move] = score + jitter[move]
                    alpha = max(alpha, scores[move])
            except _OutOfTime:
                # The previous best was searched first: a move that beat it is better.
                if scores:
                    move = max(scores, key=lambda m: scores[m])
                    if move != order[0] or best_score == -INFINITY:
                        best_move, best_score = move, scores[move]
                break
            order.sort(key=lambda m: -scores[m])
            best_move, best_score, done_depth = order[0], scores[order[0]], depth
            self.stoppable = True
            if abs(best_score) >= WIN // 2:
                break  # a forced result: deeper search cannot change it
            # An iteration costs several times the one before: do not start one that
            # cannot finish.
            elapsed = time.perf_counter() - started
            if self.nodes * 3 > self.node_limit or elapsed * 3 > self.deadline - started:
                break
        if best_score == -INFINITY:
            best_score = 0  # the time ran out before any move was searched: no verdict
        return best_move, best_score, done_depth


def _first_two(item: tuple[int, int, Move]) -> tuple[int, int]:
    return item[0], item[1]


def think(
    position: Position,
    level: int,
    budget_s: float,
    seed: int = 0,
    *,
    history: Iterable[int] = (),
    blocked: str = "loss",
) -> Decision:
    """Search ``position`` at ``level`` (1, 2 or 3) for at most ``budget_s`` seconds.

    ``history`` holds the Zobrist hashes (:meth:`Position.zobrist`) of the game's earlier
    positions, which the robot treats as draws if they come up again; ``blocked`` is the
    game's rule for a player without a move (``"loss"`` or ``"draw"``). Raises ValueError when
    the position has no legal move. The same arguments give the same move, unless the time
    budget runs out before the level's node allowance (:meth:`Level.node_allowance`).
    """
    if level not in LEVELS:
        raise ValueError(f"robot level must be 1, 2 or 3, not {level!r}")
    moves = position.legal_moves()
    if not moves:
        raise ValueError("the position has no legal move: the game is over")
    started = time.perf_counter()
    rng = random.Random(seed * 0x9E3779B1 ^ position.zobrist())
    if len(moves) == 1:
        return Decision(moves[0], 0, 0, 0, time.perf_counter() - started)
    chosen = LEVELS[level]
    search = _Search(
        chosen, started + budget_s, set(history), blocked == "draw",
        chosen.node_allowance(budget_s),
    )
    move, score, depth = search.root(position, rng, started)
    return Decision(move, score, depth, search.nodes, time.perf_counter() - started)


def choose_move(position: Position, level: int, budget_s: float, seed: int = 0) -> Move:
    """The move a robot of ``level`` (1 weak, 2 medium, 3 strong) plays in ``position``,
    thinking at most about ``budget_s`` seconds; deterministic for a given ``seed``."""
    return think(position, level, budget_s, seed).move


def resigns(decision: Decision, position: Position) -> bool:
    """Whether a robot resigns rather than play ``decision``: the search proved the game
    lost, or the robot is behind by more than half of its men with nothing in hand."""
    if decision.lost:
        return True
    side = position.side_index
    return decision.score <= -6 * MAN and not position.hands[side]
