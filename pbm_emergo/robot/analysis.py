"""The engine's look at a finished game: pure, standard library only, no I/O (like ``rules``).

::

    from pbm_emergo.robot.analysis import analyse
    report = analyse(["e4", "e6", ...], seconds_per_move=1.0)
    report.verdicts[0].score, report.verdicts[0].label, report.summary(0).average_loss

Every position of the game is searched once (the strong robot's search, without noise):
the search of the position before a move gives the best move, its value and its line;
the search of the position after it gives the value of the move played. A move's *loss*
is how much worse the move played is than the best one, for the player who made it, in
hundredths of a man; values beyond :data:`CLAMP` (a position already won or lost) are
cut to it first, so that one more man in a won game is no mistake.

:func:`moves_analysed` yields the verdicts one move at a time, so that a caller can do
other work between moves (the robots' runner does); :class:`Report` holds them all, and
:meth:`Report.to_data` / :meth:`Report.from_data` turn it into plain JSON data and back.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pbm_emergo.robot.evaluate import FULL
from pbm_emergo.robot.search import MAX_PLY, WIN, Level, _Search
from pbm_emergo.rules import Game, Move, Position

#: The thresholds of a move's loss, in hundredths of a man (docs/robot.md).
INACCURACY = 40
MISTAKE = 100
BLUNDER = 250
#: Values are cut to this many hundredths of a man before a loss is computed.
CLAMP = 1000
#: Positions a search may examine (makes an analysis deterministic when time is ample).
NODE_LIMIT = 60_000
#: Moves of a better line shown (the better move and the answers it leads to).
LINE_PLIES = 4

LABELS = ("inaccuracy", "mistake", "blunder")


def classify(loss: int) -> str:
    """``"blunder"``, ``"mistake"``, ``"inaccuracy"`` or ``""`` for a loss in hundredths of
    a man."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return ""


@dataclass(frozen=True, slots=True)
class MoveVerdict:
    """The engine's verdict on one move of the game."""

    number: int  # the move number (1, 2, ... both sides counted)
    side: int  # 0 White (Ohs), 1 Black (Eks)
    played: str
    #: The value after the move played, for its player, in hundredths of a man (beyond
    #: +-WIN/2: a forced win or loss).
    score: int
    best: str  # the engine's choice
    best_score: int  # its value, for the same player
    loss: int  # best minus played, both clamped (0 when the move played is the best)
    label: str  # "", "inaccuracy", "mistake" or "blunder"
    line: tuple[str, ...]  # the better line, from the best move (empty when played was best)


@dataclass(frozen=True, slots=True)
class SideSummary:
    """One player's moves in numbers."""

    moves: int
    inaccuracies: int
    mistakes: int
    blunders: int
    average_loss: int  # hundredths of a man a move


@dataclass(frozen=True, slots=True)
class Report:
    """The whole analysis: a verdict for every move, and what the search cost."""

    verdicts: tuple[MoveVerdict, ...]
    nodes: int
    seconds: float

    def summary(self, side: int) -> SideSummary:
        mine = [v for v in self.verdicts if v.side == side]
        loss = sum(v.loss for v in mine)
        return SideSummary(
            moves=len(mine),
            inaccuracies=sum(v.label == "inaccuracy" for v in mine),
            mistakes=sum(v.label == "mistake" for v in mine),
            blunders=sum(v.label == "blunder" for v in mine),
            average_loss=round(loss / len(mine)) if mine else 0,
        )

    def to_data(self) -> dict[str, object]:
        """The report as plain JSON data (lists, numbers, strings)."""
        return {
            "verdicts": [
                [v.number, v.side, v.played, v.score, v.best, v.best_score, v.loss, v.label,
                 list(v.line)]
                for v in self.verdicts
            ],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Report:
        """The report :meth:`to_data` made."""
        verdicts = tuple(
            MoveVerdict(int(n), int(side), str(played), int(score), str(best), int(best_score),
                        int(loss), str(label), tuple(str(m) for m in line))
            for n, side, played, score, best, best_score, loss, label, line in data["verdicts"]
        )
        return cls(verdicts, int(data["nodes"]), float(data["seconds"]))

    @property
    def turning_point(self) -> MoveVerdict | None:
        """The move that lost most (the first of equals), None when none lost anything."""
        worst = max(self.verdicts, key=lambda v: v.loss, default=None)
        return worst if worst is not None and worst.loss > 0 else None


@dataclass(frozen=True, slots=True)
class _Looked:
    """What the search found in one position, for its side to move."""

    score: int
    best: str
    line: tuple[str, ...]
    nodes: int


def _look(
    position: Position, seconds: float, node_limit: int, seen: set[int], blocked: str, seed: int
) -> _Looked:
    """Search ``position``: its value for the side to move, the best move and its line."""
    level = Level(3, max_depth=MAX_PLY, node_limit=node_limit, noise=0, weights=FULL)
    started = time.perf_counter()
    search = _Search(level, started + seconds, set(seen), blocked == "draw")
    rng = random.Random(seed * 0x9E3779B1 ^ position.zobrist())
    move, score, _ = search.root(position, rng, started)
    return _Looked(score, str(move), _line(search, position, move), search.nodes)


def _line(search: _Search, position: Position, first: Move) -> tuple[str, ...]:
    """The principal variation from ``first``, as far as the search's table holds it."""
    line = [str(first)]
    position = position.play_legal(first)
    while len(line) < LINE_PLIES:
        entry = search.table.get(position.zobrist())
        moves = position.legal_moves()
        if entry is None or not moves or not 0 <= entry[3] < len(moves):
            break
        move = moves[entry[3]]
        line.append(str(move))
        position = position.play_legal(move)
    return tuple(line)


def _clamped(score: int) -> int:
    return max(-CLAMP, min(CLAMP, score))


def moves_analysed(
    moves: Sequence[str],
    *,
    seconds_per_move: float,
    node_limit: int = NODE_LIMIT,
    blocked: str = "loss",
    seed: int = 0,
    spent: list[int] | None = None,
) -> Iterator[MoveVerdict]:
    """The verdict on each of ``moves`` (notations from the start), one at a time; each
    position is searched for at most ``seconds_per_move`` seconds and ``node_limit``
    positions. The nodes searched are added to ``spent[0]`` when given. Raises
    :class:`pbm_emergo.rules.MoveError` if a move is not legal."""
    game = Game(blocked="draw" if blocked == "draw" else "loss")
    seen: set[int] = set()
    position = game.position
    before = _look(position, seconds_per_move, node_limit, seen, blocked, seed)
    for number, notation in enumerate(moves, start=1):
        side = position.side_index
        seen.add(position.zobrist())
        played = str(game.play(notation))
        after_position = game.position
        outcome = game.outcome()
        after: _Looked | None = None
        if outcome is not None:
            if outcome.winner is None:
                score = 0
            else:
                won = (outcome.winner == "white") == (side == 0)
                score = WIN - number if won else -WIN + number
        else:
            after = _look(after_position, seconds_per_move, node_limit, seen, blocked, seed)
            score = -after.score
        if spent is not None:
            spent[0] += before.nodes
        best_score = max(before.score, score) if played != before.best else score
        loss = 0 if played == before.best else max(0, _clamped(before.score) - _clamped(score))
        label = classify(loss)
        yield MoveVerdict(
            number=number,
            side=side,
            played=played,
            score=score,
            best=before.best,
            best_score=best_score,
            loss=loss,
            label=label,
            line=before.line if loss else (),
        )
        if after is None:
            break
        position, before = after_position, after


def analyse(
    moves: Sequence[str],
    *,
    seconds_per_move: float,
    node_limit: int = NODE_LIMIT,
    blocked: str = "loss",
    seed: int = 0,
) -> Report:
    """The whole analysis of ``moves`` at once (see :func:`moves_analysed`)."""
    started = time.perf_counter()
    spent = [0]
    verdicts = tuple(
        moves_analysed(
            moves, seconds_per_move=seconds_per_move, node_limit=node_limit,
            blocked=blocked, seed=seed, spent=spent,
        )
    )
    return Report(verdicts, spent[0], time.perf_counter() - started)


def men(score: int) -> str:
    """A value in men for people: ``+1.35``, ``-0.40``, ``wins by force``."""
    if score >= WIN // 2:
        return "wins by force"
    if score <= -WIN // 2:
        return "loses by force"
    return f"{score / 100:+.2f}"


__all__ = [
    "BLUNDER",
    "CLAMP",
    "INACCURACY",
    "LABELS",
    "LINE_PLIES",
    "MISTAKE",
    "NODE_LIMIT",
    "MoveVerdict",
    "Report",
    "SideSummary",
    "analyse",
    "classify",
    "men",
    "moves_analysed",
]
