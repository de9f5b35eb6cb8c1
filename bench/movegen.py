"""Move generation: the engine's ``legal_moves()`` against a straightforward generator.

    .venv/bin/python bench/movegen.py [--games 100] [--seed 1] [--repeat 5]

The straightforward generator (:class:`Straightforward`) is what one writes from the rules
without tricks: the board is a list of 41 cells holding ``None`` or ``(side, own,
prisoners)``, neighbours come from a table, captures are a plain depth-first search that
changes the board in place and puts it back (no memo, no bitmasks), entries and steps are
loops over the cells. It is not made slow on purpose (tests/rules/reference.py is the slow,
independent one): it is the baseline the issue's "at most 0.4x" is measured against.

Both generators run on the same positions of random games; every position's move lists are
checked equal before anything is timed. Each generator is timed on the whole list of
positions (best of ``--repeat`` runs); the engine on fresh ``Position`` objects each run
(positions cache their moves), built outside the timing.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time

from pbm_emergo.rules import CELLS, Position

ROWS = "abcdefghi"
# The four lines of the diamond (row step, column step).
_DIRS = ((-1, 0), (0, -1), (0, 1), (1, 0))


def _cell(r: int, c: int) -> int:
    """The number of cell (r, c), or -1 off the board."""
    if 0 <= r <= 8 and 0 <= c <= 8 and abs(r - 4) + abs(c - 4) <= 4:
        return CELLS.index(f"{ROWS[r]}{c + 1}")
    return -1


# NEIGHBOURS[n]: (direction, neighbour, cell beyond the neighbour or -1) for each neighbour.
NEIGHBOURS: list[list[tuple[int, int, int]]] = []
for _name in CELLS:
    _r, _c = ROWS.index(_name[0]), int(_name[1]) - 1
    NEIGHBOURS.append([
        (d, _cell(_r + dr, _c + dc), _cell(_r + 2 * dr, _c + 2 * dc))
        for d, (dr, dc) in enumerate(_DIRS)
        if _cell(_r + dr, _c + dc) >= 0
    ])
E5 = CELLS.index("e5")

Piece = tuple[int, int, int]  # (side 0 white / 1 black, own men, prisoners)


class Straightforward:
    """A position as plain data, and its legal moves as sorted notation."""

    def __init__(self, text: str) -> None:
        pos = Position.from_text(text)
        self.side = 0 if pos.to_move == "white" else 1
        self.hands = [pos.in_hand("white"), pos.in_hand("black")]
        self.ply = pos.ply
        self.board: list[Piece | None] = [None] * len(CELLS)
        for name, col in pos.columns().items():
            self.board[CELLS.index(name)] = (
                0 if col.owner == "white" else 1, col.own, col.prisoners
            )

    def legal_moves(self) -> list[str]:
        routes = self.captures()
        if routes:
            return sorted("x".join(CELLS[n] for n in route) for route in routes)
        if self.hands[self.side]:
            return sorted(CELLS[n] for n in self.entries())
        return sorted(f"{CELLS[a]}-{CELLS[b]}" for a, b in self.steps())

    def captures(self) -> list[list[int]]:
        """Every maximum capture route of the side to move."""
        best: list[list[int]] = []
        size = 0
        for start, piece in enumerate(self.board):
            if piece is None or piece[0] != self.side:
                continue
            self.board[start] = None  # the piece has left its cell
            found: list[list[int]] = []
            self._extend([start], -1, found)
            self.board[start] = piece
            for route in found:
                if len(route) - 1 > size:
                    size, best = len(route) - 1, [route]
                elif len(route) - 1 == size and size:
                    best.append(route)
        return best

    def _extend(self, route: list[int], came: int, found: list[list[int]]) -> None:
        here = route[-1]
        extended = False
        for d, over, land in NEIGHBOURS[here]:
            if land < 0 or d == 3 - came or self.board[land] is not None:
                continue
            jumped = self.board[over]
            if jumped is None or jumped[0] == self.side:
                continue
            owner, own, prisoners = jumped
            if own > 1:
                self.board[over] = (owner, own - 1, prisoners)
            elif prisoners:
                self.board[over] = (1 - owner, prisoners, 0)  # liberated
            else:
                self.board[over] = None
            route.append(land)
            self._extend(route, d, found)
            route.pop()
            self.board[over] = jumped
            extended = True
        if not extended and len(route) > 1:
            found.append(list(route))

    def _can_capture(self, side: int) -> bool:
        for n, piece in enumerate(self.board):
            if piece is None or piece[0] != side:
                continue
            for _, over, land in NEIGHBOURS[n]:
                jumped = self.board[over]
                if (
                    land >= 0 and self.board[land] is None
                    and jumped is not None and jumped[0] != side
                ):
                    return True
        return False

    def entries(self) -> list[int]:
        enemy = 1 - self.side
        attacked = self._can_capture(enemy)
        out = []
        for n, piece in enumerate(self.board):
            if piece is not None or (n == E5 and self.ply == 0 and self.side == 0):
                continue
            if not attacked and self._capturable(n, enemy):
                continue  # no feeding
            out.append(n)
        return out

    def _capturable(self, n: int, by: int) -> bool:
        """Whether a piece on n could be jumped at once by a ``by`` piece."""
        for d, neighbour, _ in NEIGHBOURS[n]:
            piece = self.board[neighbour]
            if piece is None or piece[0] != by:
                continue
            behind = next((m for e, m, _ in NEIGHBOURS[n] if e == 3 - d), -1)
            if behind >= 0 and self.board[behind] is None:
                return True
        return False

    def steps(self) -> list[tuple[int, int]]:
        return [
            (n, neighbour)
            for n, piece in enumerate(self.board)
            if piece is not None and piece[0] == self.side
            for _, neighbour, _ in NEIGHBOURS[n]
            if self.board[neighbour] is None
        ]


def random_texts(games: int, seed: int) -> list[str]:
    """The positions of random games (uniform legal moves), as text."""
    rng = random.Random(seed)
    texts = []
    for _ in range(games):
        pos = Position()
        while pos.ply < 1000:
            legal = pos.legal_moves()
            if not legal:
                break
            texts.append(pos.to_text())
            pos = pos.play(rng.choice(legal))
    return texts


def best_time(run: object, repeat: int, setup: object) -> float:
    times = []
    for _ in range(repeat):
        items = setup()  # type: ignore[operator]
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        run(items)  # type: ignore[operator]
        times.append(time.perf_counter() - start)
        gc.enable()
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"command: .venv/bin/python bench/movegen.py {' '.join(argv or sys.argv[1:])}".rstrip())
    print(f"python {sys.version.split()[0]}")
    texts = random_texts(args.games, args.seed)
    boards = [Straightforward(t) for t in texts]
    for text, board in zip(texts, boards, strict=True):
        engine = [str(m) for m in Position.from_text(text).legal_moves()]
        assert engine == board.legal_moves(), text
    print(f"{args.games} random games, {len(texts)} positions; move lists equal on all of them")

    def run_engine(positions: list[Position]) -> None:
        for pos in positions:
            pos.legal_moves()

    def run_straight(items: list[Straightforward]) -> None:
        for board in items:
            board.legal_moves()

    engine = best_time(run_engine, args.repeat, lambda: [Position.from_text(t) for t in texts])
    straight = best_time(run_straight, args.repeat, lambda: boards)
    n = len(texts)
    print(f"{'generator':<28} {'total':>9} {'per position':>14}")
    print(f"{'straightforward':<28} {straight * 1e3:7.1f} ms {straight / n * 1e6:11.2f} us")
    print(f"{'engine legal_moves()':<28} {engine * 1e3:7.1f} ms {engine / n * 1e6:11.2f} us")
    ratio = engine / straight
    print(f"engine / straightforward = {ratio:.2f}x (aim: at most 0.40x: "
          f"{'met' if ratio <= 0.4 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
