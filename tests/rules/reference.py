"""A deliberately simple, slow Emergo move generator, written straight from RULES.md.

It exists only to cross-check the fast engine in ``pbm_emergo.rules`` and imports nothing
from it. Everything is plain data: the board is a dict ``cell -> list of men`` (bottom to
top, each man ``"white"`` or ``"black"``), captures are found by brute force (every route
of every piece, no memo), and the board is copied at every jump. Clarity over speed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

WHITE = "white"
BLACK = "black"
ROWS = "abcdefghi"

# The four lines of the diamond, as (row step, column step).
DIRECTIONS: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))


def exists(row: int, col: int) -> bool:
    """RULES.md: cell (row r, column c), both 0..8, exists iff |r-4| + |c-4| <= 4."""
    return 0 <= row <= 8 and 0 <= col <= 8 and abs(row - 4) + abs(col - 4) <= 4


def name(row: int, col: int) -> str:
    return f"{ROWS[row]}{col + 1}"


def coords(cell: str) -> tuple[int, int]:
    return ROWS.index(cell[0]), int(cell[1]) - 1


CELLS: tuple[str, ...] = tuple(
    name(row, col) for row in range(9) for col in range(9) if exists(row, col)
)


def shifted(cell: str, direction: tuple[int, int], steps: int = 1) -> str | None:
    """The cell `steps` cells away along `direction`, or None off the board."""
    row, col = coords(cell)
    row, col = row + steps * direction[0], col + steps * direction[1]
    return name(row, col) if exists(row, col) else None


def neighbours(cell: str) -> list[str]:
    return [n for d in DIRECTIONS if (n := shifted(cell, d)) is not None]


def opponent(side: str) -> str:
    return BLACK if side == WHITE else WHITE


@dataclass
class RefPosition:
    """A whole game state: board, hands, side to move and ply (moves played so far)."""

    board: dict[str, list[str]] = field(default_factory=dict)
    hand: dict[str, int] = field(default_factory=lambda: {WHITE: 12, BLACK: 12})
    to_move: str = WHITE
    ply: int = 0

    def copy(self) -> RefPosition:
        return RefPosition(
            {cell: list(men) for cell, men in self.board.items()},
            dict(self.hand),
            self.to_move,
            self.ply,
        )

    def owner(self, cell: str | None) -> str | None:
        if cell is None or cell not in self.board:
            return None
        return self.board[cell][-1]

    def vacant(self, cell: str | None) -> bool:
        return cell is not None and cell not in self.board

    # -- capture ---------------------------------------------------------------------------

    def can_jump(self, side: str) -> bool:
        """Whether `side` has at least one capture (a first jump) on this board."""
        for cell in self.board:
            if self.owner(cell) != side:
                continue
            for d in DIRECTIONS:
                over, land = shifted(cell, d), shifted(cell, d, 2)
                if over is not None and self.owner(over) == opponent(side) and self.vacant(land):
                    return True
        return False

    def capture_routes(self) -> list[list[str]]:
        """Every complete capture route of the side to move (start cell, then landings)."""
        me = self.to_move
        routes: list[list[str]] = []
        for start in CELLS:
            if self.owner(start) != me:
                continue
            board = {cell: list(men) for cell, men in self.board.items()}
            piece = board.pop(start)  # the start cell is vacant once the piece leaves
            self._extend(board, piece, [start], None, routes)
        return routes

    def _extend(
        self,
        board: dict[str, list[str]],
        piece: list[str],
        route: list[str],
        last: tuple[int, int] | None,
        routes: list[list[str]],
    ) -> None:
        me = piece[-1]
        here = route[-1]
        went_on = False
        for d in DIRECTIONS:
            if last is not None and d == (-last[0], -last[1]):
                continue  # no 180-degree turn
            over, land = shifted(here, d), shifted(here, d, 2)
            if over is None or land is None or land in board:
                continue
            if over not in board or board[over][-1] == me:
                continue
            new_board = {cell: list(men) for cell, men in board.items()}
            taken = new_board[over].pop()  # the top man of the jumped piece...
            if not new_board[over]:
                del new_board[over]
            # ...goes to the bottom of the capturer. If the jumped piece's top is now our
            # colour, its prisoners are liberated: that follows from the list itself.
            self._extend(new_board, [taken, *piece], [*route, land], d, routes)
            went_on = True
        if not went_on and len(route) > 1:
            routes.append(route)

    def max_capture_routes(self) -> list[list[str]]:
        routes = self.capture_routes()
        if not routes:
            return []
        best = max(len(r) for r in routes)
        return [r for r in routes if len(r) == best]

    def capture_size(self) -> int:
        routes = self.max_capture_routes()
        return len(routes[0]) - 1 if routes else 0

    # -- entering and stepping -------------------------------------------------------------

    def capturable_at(self, cell: str, by: str) -> bool:
        """RULES.md no-feeding test: a `by`-capped piece on t+d with t-d existing and vacant."""
        for d in DIRECTIONS:
            attacker = shifted(cell, d)
            landing = shifted(cell, (-d[0], -d[1]))
            if self.owner(attacker) == by and self.vacant(landing):
                return True
        return False

    def entries(self) -> list[str]:
        me = self.to_move
        if self.hand[me] == 0:
            return []
        attacked = self.can_jump(opponent(me))
        found = []
        for cell in CELLS:
            if cell in self.board:
                continue
            if self.ply == 0 and me == WHITE and cell == "e5":
                continue
            if not attacked and self.capturable_at(cell, opponent(me)):
                continue
            found.append(cell)
        return found

    def steps(self) -> list[str]:
        me = self.to_move
        return [
            f"{cell}-{n}"
            for cell in CELLS
            if self.owner(cell) == me
            for n in neighbours(cell)
            if n not in self.board
        ]

    def legal_moves(self) -> list[str]:
        """Canonical notation of every legal move, sorted."""
        routes = self.max_capture_routes()
        if routes:
            moves = ["x".join(r) for r in routes]
        elif self.hand[self.to_move] > 0:
            moves = self.entries()
        else:
            moves = self.steps()
        return sorted(moves)

    # -- playing ---------------------------------------------------------------------------

    def play(self, move: str) -> RefPosition:
        """The position after `move` (canonical notation, assumed legal)."""
        me = self.to_move
        after = self.copy()
        if "x" in move:
            route = move.split("x")
            piece = after.board.pop(route[0])
            for here, land in zip(route, route[1:], strict=False):
                (hr, hc), (lr, lc) = coords(here), coords(land)
                over = name((hr + lr) // 2, (hc + lc) // 2)
                taken = after.board[over].pop()
                if not after.board[over]:
                    del after.board[over]
                piece.insert(0, taken)
            after.board[route[-1]] = piece
        elif "-" in move:
            source, target = move.split("-")
            after.board[target] = after.board.pop(source)
        else:
            count = after.hand[me] if after.hand[opponent(me)] == 0 else 1
            after.board[move] = [me] * count
            after.hand[me] -= count
        after.to_move = opponent(me)
        after.ply += 1
        return after

    def men(self, side: str) -> int:
        """Men of `side` on the board (wherever they sit in a column) plus in hand."""
        return self.hand[side] + sum(men.count(side) for men in self.board.values())

    def key(self) -> tuple[object, ...]:
        return (
            tuple(sorted((cell, tuple(men)) for cell, men in self.board.items())),
            self.hand[WHITE],
            self.hand[BLACK],
            self.to_move,
        )

    def loss_reason(self) -> str | None:
        """Why the side to move loses (no legal move), or None if it has a move."""
        if self.legal_moves():
            return None
        me = self.to_move
        if self.hand[me] == 0 and not any(self.owner(c) == me for c in self.board):
            return "eliminated"
        if self.hand[me] > 0:
            return "no legal entry"
        return "blocked"


def perft(position: RefPosition, depth: int) -> int:
    """Number of move sequences of length `depth` from `position`."""
    if depth == 0:
        return 1
    moves = position.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(perft(position.play(m), depth - 1) for m in moves)
