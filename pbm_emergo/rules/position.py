"""Positions: the state of a game between two moves, move generation and move application.

A position is immutable. Its cells are a tuple indexed by cell number holding one signed
int per cell: 0 for a vacant cell, ``+(own | prisoners << 5)`` for a white-capped column and
``-(own | prisoners << 5)`` for a black-capped one. Each side's caps are also kept as a
bitmask on the padded grid (see :mod:`pbm_emergo.rules.board`), so that "is there a
capture?", "which cells are safe to enter?" and "which pieces can step?" are a handful of
integer operations instead of loops over cells.

The grid is 11 wide: the shifts by 1, 2, 11 and 22 in move generation are one and two
cells left/right and up/down, written as literals because that is measurably faster.

The maximum-capture search runs only when a capture exists. It first tries a plain
depth-first search (fastest for the short captures of real games); past a few hundred nodes
it hands over to a search whose state is (cell, direction it arrived from, remaining men of
every enemy column) and is memoised, so no subtree is computed twice. A route takes one
enemy man per jump and the enemy has at most 12 men, so no route is longer than 12 jumps:
the search is bounded by design.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from pbm_emergo.rules.board import (
    CELLS,
    CENTRE,
    DIRECTIONS,
    GRID,
    INDEX,
    JUMPS,
    NAME,
    NUMBER,
    OPPOSITE,
    STEPS,
    VALID,
    WIDTH,
    bits,
)
from pbm_emergo.rules.errors import (
    AmbiguousMoveError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
)
from pbm_emergo.rules.move import Move
from pbm_emergo.rules.reasons import Reason, reason

WHITE = "white"
BLACK = "black"
SIDES = (WHITE, BLACK)
LETTERS = ("o", "x")
MEN_PER_SIDE = 12


class Column(NamedTuple):
    """A piece: ``own`` men of ``owner``'s colour on top of ``prisoners`` enemy men."""

    owner: str
    own: int
    prisoners: int

    @property
    def height(self) -> int:
        return self.own + self.prisoners

    @property
    def code(self) -> str:
        """Compact composition, top section first: ``o3x5``, ``x1``."""
        top = LETTERS[SIDES.index(self.owner)]
        text = f"{top}{self.own}"
        if self.prisoners:
            other = LETTERS[1 - SIDES.index(self.owner)]
            text += f"{other}{self.prisoners}"
        return text


# Every entry and step is one of a fixed set of moves: build them once.
_ENTRY: dict[int, Move] = {g: Move.from_path("enter", (g,)) for g in GRID}
_STEP: dict[int, tuple[Move | None, ...]] = {
    g: tuple(
        Move.from_path("step", (g, g + off)) if NUMBER[g + off] >= 0 else None
        for off in DIRECTIONS
    )
    for g in GRID
}


def _band_table() -> list[tuple[int, int, dict[int, tuple[Move, ...]]]]:
    """Bands of board rows (at most 9 cells each): their shift, their mask, and for every
    pattern of their cells the entries onto those cells, in name order."""
    table = []
    for rows in ((0, 1, 2), (3,), (4,), (5,), (6, 7, 8)):
        base = (rows[0] + 2) * WIDTH
        top = (rows[-1] + 3) * WIDTH
        offsets = [g - base for g in GRID if base <= g < top]
        patterns: dict[int, tuple[Move, ...]] = {}
        for subset in range(1 << len(offsets)):
            chosen = [c for i, c in enumerate(offsets) if subset >> i & 1]
            patterns[sum(1 << c for c in chosen)] = tuple(_ENTRY[base + c] for c in chosen)
        table.append((base, sum(1 << c for c in offsets), patterns))
    return table


_ENTRY_BANDS = _band_table()
assert WIDTH == 11, "move generation shifts by literal multiples of the grid width"
_LEAF: list[tuple[int, ...]] = [()]

# The bits of a cell's four neighbours in ``vacant >> (g - WIDTH)``: up, left, right, down.
_AROUND = 1 | 1 << (WIDTH - 1) | 1 << (WIDTH + 1) | 1 << (2 * WIDTH)


def _step_table() -> list[dict[int, tuple[Move, ...]]]:
    """Per grid index, the steps from it for every pattern of vacant neighbours."""
    table: list[dict[int, tuple[Move, ...]]] = [{} for _ in range(GRID[-1] + 1)]
    for g in GRID:
        around = [(d, g + off) for d, off in enumerate(DIRECTIONS) if NUMBER[g + off] >= 0]
        for subset in range(1 << len(around)):
            chosen = [(d, n) for i, (d, n) in enumerate(around) if subset >> i & 1]
            key = sum(1 << (n - g + WIDTH) for _, n in chosen)
            table[g][key] = tuple(Move.from_path("step", (g, n)) for _, n in chosen)
    return table


_STEPS_BY_VACANCY = _step_table()


def _capturers(mine: int, theirs: int, vacant: int) -> int:
    """The pieces of ``mine`` that can jump: an enemy cap next to them, a vacant cell beyond."""
    return mine & (
        (theirs << 11 & vacant << 22)
        | (theirs << 1 & vacant << 2)
        | (theirs >> 1 & vacant >> 2)
        | (theirs >> 11 & vacant >> 22)
    )


def _movers(mine: int, vacant: int) -> int:
    """The pieces of ``mine`` with a vacant neighbour (each can step)."""
    return mine & (vacant << 11 | vacant << 1 | vacant >> 1 | vacant >> 11)


class Position:
    """The full state of a game between two moves. Immutable."""

    __slots__ = (
        "_cells", "_masks", "_hands", "_side", "_ply", "_legal", "_size", "_key", "_zobrist"
    )

    _cells: tuple[int, ...]
    _masks: tuple[int, int]
    _hands: tuple[int, int]
    _side: int
    _ply: int
    _legal: tuple[Move, ...] | None
    _size: int
    _key: tuple[object, ...] | None
    _zobrist: int

    def __init__(self) -> None:
        """The start position: an empty board, 12 men in hand each, White to move."""
        cells = (0,) * len(CELLS)
        hands = (MEN_PER_SIDE, MEN_PER_SIDE)
        self._set(cells, (0, 0), hands, 0, 0, _full_zobrist(cells, hands, 0))

    def _set(
        self,
        cells: tuple[int, ...],
        masks: tuple[int, int],
        hands: tuple[int, int],
        side: int,
        ply: int,
        zobrist: int,
    ) -> None:
        self._cells = cells
        self._masks = masks
        self._hands = hands
        self._side = side
        self._ply = ply
        self._legal = None
        self._size = 0
        self._key = None
        self._zobrist = zobrist

    @classmethod
    def _make(
        cls,
        cells: tuple[int, ...],
        masks: tuple[int, int],
        hands: tuple[int, int],
        side: int,
        ply: int,
        zobrist: int,
    ) -> Position:
        pos = cls.__new__(cls)
        pos._set(cells, masks, hands, side, ply, zobrist)
        return pos

    # ------------------------------------------------------------------ reading the state

    @property
    def to_move(self) -> str:
        """The side to move: ``"white"`` or ``"black"``."""
        return SIDES[self._side]

    @property
    def ply(self) -> int:
        """Moves played so far by both sides; the next move is number ``ply + 1``."""
        return self._ply

    def in_hand(self, side: str) -> int:
        """Men ``side`` still has in hand."""
        return self._hands[SIDES.index(side)]

    def column(self, cell: str) -> Column | None:
        """The column on ``cell`` (any case), or None when the cell is vacant."""
        g = INDEX.get(cell.strip().lower())
        if g is None:
            raise InvalidMoveError(reason("not_a_cell", cell=repr(cell)))
        return _column(self._cells[NUMBER[g]])

    def columns(self) -> dict[str, Column]:
        """Every occupied cell and its column, in cell order."""
        return {
            CELLS[n]: col
            for n, value in enumerate(self._cells)
            if value and (col := _column(value)) is not None
        }

    # The raw state, for searches and evaluations that cannot afford Column objects.

    @property
    def cell_values(self) -> tuple[int, ...]:
        """Per cell number (the order of ``CELLS``): 0 vacant, ``own | prisoners << 5`` for
        a white-capped column, minus that for a black-capped one."""
        return self._cells

    @property
    def cap_masks(self) -> tuple[int, int]:
        """White's and Black's caps as bitmasks on the padded grid of
        :mod:`pbm_emergo.rules.board` (bit ``GRID[n]`` for cell number ``n``)."""
        return self._masks

    @property
    def hands(self) -> tuple[int, int]:
        """White's and Black's men in hand."""
        return self._hands

    @property
    def side_index(self) -> int:
        """The side to move as an index: 0 White, 1 Black."""
        return self._side

    def key(self) -> tuple[object, ...]:
        """What makes two positions the same for repetition: cells, hands, side to move."""
        if self._key is None:
            self._key = (self._cells, self._hands, self._side)
        return self._key

    def zobrist(self) -> int:
        """A 64-bit hash of :meth:`key` (cells, hands, side to move; not the ply).

        Equal keys give equal hashes, in every process (the table is fixed). :meth:`play`
        updates it from the parent's for the cells the move changed, so a search can use
        it as a transposition key at no cost.
        """
        return self._zobrist

    def key_text(self) -> str:
        """:meth:`key` as stable text: :meth:`to_text` without the ply.

        For example ``x 7 6 c4=o3x5,d4=o2``. Exact (two positions have the same key text
        exactly when they have the same key) and fit to be stored: this is the form of the
        repetition history a :class:`~pbm_emergo.rules.Game` is resumed from.
        """
        return f"{LETTERS[self._side]} {self._hands[0]} {self._hands[1]} {self._cells_text()}"

    def repetition_class(self) -> tuple[int, int]:
        """(men in both hands, occupied cells): a position can only recur while it is equal.

        Over a game this pair never increases (compared as a tuple, men in hand first):
        an entry takes men from a hand, which nothing gives back; a step moves one column;
        a capture moves the capturing column to a vacant cell and only takes men from the
        columns it jumps, so no column appears and a jumped column whose last man is taken
        disappears. Hands and cells are part of :meth:`key`, so once the pair has dropped
        no earlier position can occur again. Nothing else is irreversible: a capture that
        empties no cell can be undone, e.g. from ``x 0 0 44 b5=o1,e4=o1x1,f4=x1`` Black's
        ``f4xd4`` frees a black man on e4, White's ``b5xd5`` later frees a white one on d4,
        and ten steps bring back the same position (tests/rules/test_resume.py).
        """
        return (self._hands[0] + self._hands[1], (self._masks[0] | self._masks[1]).bit_count())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.key() == other.key() and self._ply == other._ply

    def __hash__(self) -> int:
        return hash((self.key(), self._ply))

    def __repr__(self) -> str:
        return f"Position.from_text({self.to_text()!r})"

    # ------------------------------------------------------------------ move generation

    def legal_moves(self) -> list[Move]:
        """Every legal move, sorted by notation. Only maximum captures when one exists."""
        if self._legal is None:
            self._generate()
        assert self._legal is not None
        return list(self._legal)

    def capture_size(self) -> int:
        """How many men the compulsory capture takes; 0 when no capture exists."""
        if self._legal is None:
            self._generate()
        return self._size

    def is_quiet(self) -> bool:
        """Whether the side to move has a legal move and no capture: decided from the
        bitmasks, without generating the moves (a search's leaves need only this)."""
        if self._legal is not None:
            return bool(self._legal) and not self._size
        side = self._side
        mine = self._masks[side]
        theirs = self._masks[1 - side]
        vacant = VALID & ~(mine | theirs)
        if _capturers(mine, theirs, vacant):
            return False
        if self._hands[side]:
            return bool(self._entry_targets(mine, theirs, vacant))
        return bool(_movers(mine, vacant))

    def _generate(self) -> None:
        side = self._side
        mine = self._masks[side]
        theirs = self._masks[1 - side]
        vacant = VALID & ~(mine | theirs)
        capturers = _capturers(mine, theirs, vacant)
        if capturers:
            self._size, self._legal = self._captures(capturers, vacant)
            return
        if self._hands[side]:
            self._legal = self._entries(self._entry_targets(mine, theirs, vacant))
            return
        # Steps, in order of their start cell then target cell (up, left, right, down).
        movers = _movers(mine, vacant)
        moves: list[Move] = []
        table = _STEPS_BY_VACANCY
        while movers:
            low = movers & -movers
            g = low.bit_length() - 1
            movers ^= low
            moves += table[g][vacant >> (g - 11) & _AROUND]
        self._legal = tuple(moves)

    def _entry_targets(self, mine: int, theirs: int, vacant: int) -> int:
        """The cells the side to move may enter on (no capture being due)."""
        targets = vacant
        if self._ply == 0 and self._side == 0:
            targets &= ~(1 << CENTRE)
        attacked = theirs & (
            (mine << 11 & vacant << 22)
            | (mine << 1 & vacant << 2)
            | (mine >> 1 & vacant >> 2)
            | (mine >> 11 & vacant >> 22)
        )
        if not attacked:
            # No feeding: the entered piece may not be capturable at once, i.e. have an
            # enemy cap on one side and a vacant cell on the other.
            targets &= ~(
                (theirs << 11 & vacant >> 11)
                | (theirs << 1 & vacant >> 1)
                | (theirs >> 1 & vacant << 1)
                | (theirs >> 11 & vacant << 11)
            )
        return targets

    @staticmethod
    def _entries(targets: int) -> tuple[Move, ...]:
        out: list[Move] = []
        for base, mask, patterns in _ENTRY_BANDS:
            band = targets >> base & mask
            if band:
                out += patterns[band]
        return tuple(out)

    def _captures(self, capturers: int, vacant: int) -> tuple[int, tuple[Move, ...]]:
        """The maximum capture size and every route that takes it, over all pieces.

        Most captures are short: a plain depth-first search finds them fastest. A position
        with many routes through the same cells makes that search exponential, so after
        :data:`_PLAIN_NODES` nodes it gives up and the memoised search takes over.
        """
        sign = 1 - 2 * self._side
        cells = list(self._cells)
        best = 0
        found: list[tuple[int, ...]] = []
        budget = [_PLAIN_NODES]
        try:
            for start in bits(capturers):
                size, routes = _plain_routes(cells, sign, start, -1, vacant | 1 << start, budget)
                if size > best:
                    best = size
                    found = [(start, *route) for route in routes]
                elif size == best:
                    found.extend((start, *route) for route in routes)
        except _TooManyNodes:
            theirs = self._masks[1 - self._side]
            best, found = self._memo_captures(capturers, theirs, vacant)
        # Grid order is name order and the routes are equally long: sorting the paths
        # sorts the notations.
        found.sort()
        return best, tuple(_capture_move(path) for path in found)

    def _memo_captures(
        self, capturers: int, theirs: int, vacant: int
    ) -> tuple[int, list[tuple[int, ...]]]:
        """The maximum capture size and its routes, by the memoised search."""
        sign = 1 - 2 * self._side
        cells = self._cells
        # Each enemy-capped column gets a 5-bit slot in one int holding its remaining
        # enemy men: the search state is then (cell, no-go direction, that int).
        slot: dict[int, int] = {}
        freed_if_empty: dict[int, bool] = {}
        state = 0
        for i, g in enumerate(bits(theirs)):
            value = -cells[NUMBER[g]] * sign
            slot[g] = 5 * i
            state |= (value & 31) << (5 * i)
            # A column whose last enemy man is taken leaves a vacant cell only if it held
            # no prisoners; otherwise the prisoners are liberated and the cell stays full.
            freed_if_empty[g] = not (value >> 5)

        best = 0
        found: list[tuple[int, ...]] = []
        for start in bits(capturers):
            size, routes = _route_search(slot, freed_if_empty)(
                start, -1, vacant | (1 << start), state
            )
            if size > best:
                best = size
                found = [(start, *route) for route in routes]
            elif size == best:
                found.extend((start, *route) for route in routes)
        return best, found

    # ------------------------------------------------------------------ playing moves

    def play(self, move: Move | str) -> Position:
        """The position after a legal move (a Move or notation); this one is unchanged."""
        if isinstance(move, str):
            return self._apply(self.parse_move(move))
        legal = self._legal_tuple()
        if move not in legal:
            return self._apply(self.parse_move(str(move)))  # raises with the reason
        # Apply the engine's own equal Move: one built as Move(kind, cells) has no grid path.
        return self._apply(legal[legal.index(move)])

    def _legal_tuple(self) -> tuple[Move, ...]:
        if self._legal is None:
            self._generate()
        assert self._legal is not None
        return self._legal

    def play_legal(self, move: Move) -> Position:
        """The position after ``move``, which must be one of :meth:`legal_moves` (not checked).

        For searches, which only play the moves the engine gave them: :meth:`play` first
        checks the move. The result for any other move is undefined.
        """
        return self._apply(move)

    def _apply(self, move: Move) -> Position:
        side = self._side
        sign = 1 - 2 * side
        cells = list(self._cells)
        hands = self._hands
        mine, theirs = self._masks[side], self._masks[1 - side]
        path = move.path
        # The hash changes by the side to move and every cell that changes (z(old) ^ z(new)).
        zobrist = self._zobrist ^ _Z_SIDE
        kind = move.kind
        if kind == "step":
            a, b = path
            na, nb = NUMBER[a], NUMBER[b]
            value = cells[na]
            cells[nb] = value
            cells[na] = 0
            zobrist ^= _zobrist(na, value) ^ _zobrist(nb, value)
            mine ^= (1 << a) | (1 << b)
        elif kind == "enter":
            g = path[0]
            ng = NUMBER[g]
            n = 1 if hands[1 - side] else hands[side]
            cells[ng] = sign * n
            zobrist ^= (
                _zobrist(ng, sign * n)
                ^ _Z_HANDS[side][hands[side]]
                ^ _Z_HANDS[side][hands[side] - n]
            )
            hands = (hands[0] - n, hands[1]) if side == 0 else (hands[0], hands[1] - n)
            mine |= 1 << g
        else:
            cur = path[0]
            n_cur = NUMBER[cur]
            value = cells[n_cur] * sign
            zobrist ^= _zobrist(n_cur, cells[n_cur])
            cells[n_cur] = 0
            mine &= ~(1 << cur)
            for land in path[1:]:
                over = (cur + land) // 2
                n_over = NUMBER[over]
                old = cells[n_over]
                enemy = -old * sign
                left = (enemy & 31) - 1
                prisoners = enemy >> 5
                if left:
                    new = -sign * (left | prisoners << 5)
                elif prisoners:  # liberated: the rest of the column is ours now
                    new = sign * prisoners
                    theirs &= ~(1 << over)
                    mine |= 1 << over
                else:
                    new = 0
                    theirs &= ~(1 << over)
                cells[n_over] = new
                zobrist ^= _zobrist(n_over, old) ^ _zobrist(n_over, new)
                value += 1 << 5  # the taken man goes under the capturing piece
                cur = land
            n_cur = NUMBER[cur]
            cells[n_cur] = sign * value
            zobrist ^= _zobrist(n_cur, sign * value)
            mine |= 1 << cur
        masks = (mine, theirs) if side == 0 else (theirs, mine)
        return Position._make(tuple(cells), masks, hands, 1 - side, self._ply + 1, zobrist)

    # ------------------------------------------------------------------ parsing moves

    def parse_move(self, text: str) -> Move:
        """The legal move written as ``text``, in any accepted input form.

        Raises InvalidMoveError for bad syntax, IllegalMoveError (saying why) for a move
        that is not legal here, AmbiguousMoveError for a short capture form that matches
        several routes.
        """
        written = Move.from_text(text)
        legal = self._legal_tuple()
        for move in legal:
            if move == written:
                return move
        if written.kind == "capture" and len(written.cells) == 2:
            matches = [
                m for m in legal
                if m.kind == "capture" and m.cells[0] == written.cells[0]
                and m.cells[-1] == written.cells[1]
            ]
            if len(matches) == 1:
                return matches[0]
            if matches:
                routes = tuple(map(str, matches))
                raise AmbiguousMoveError(
                    reason(
                        "ambiguous", move=str(written), num=len(routes), routes=", ".join(routes)
                    ),
                    routes,
                )
        if not legal:  # the player to move has lost: the game is over
            raise GameOverError(self._why_illegal(written, legal))
        raise IllegalMoveError(self._why_illegal(written, legal))

    def _why_illegal(self, move: Move, legal: tuple[Move, ...]) -> Reason:
        side = self._side
        me, them = SIDES[side].capitalize(), SIDES[1 - side].capitalize()
        if not legal:
            return reason("game_over", side=me)
        size = self._size
        if size:
            if move.kind != "capture":
                return reason("capture_compulsory", num=size, example=str(legal[0]))
            start = move.cells[0]
            owner = self._owner(start)
            if owner is None:
                return reason("no_piece", cell=start)
            if owner != side:
                return reason("not_yours", cell=start)
            routes = ", ".join(map(str, legal))
            if len(move.cells) == 2 and not any(
                land == move.path[1] for _, _, land in JUMPS[move.path[0]]
            ):
                return reason("no_route_to", start=start, end=move.cells[1], num=size, legal=routes)
            route_error = self._route_error(move)
            if route_error:
                return reason(
                    "not_a_route_must_take", move=str(move), why=route_error, num=size, legal=routes
                )
            prefix = [m for m in legal if m.cells[: len(move.cells)] == move.cells]
            if prefix:
                taken = move.captures
                return reason(
                    "short_capture_one" if taken == 1 else "short_capture",
                    move=str(move),
                    taken=taken,
                    num=size,
                    example=str(prefix[0]),
                )
            return reason("not_maximum", move=str(move), num=size, legal=routes)
        hand = self._hands[side]
        if move.kind == "capture":
            owner = self._owner(move.cells[0])
            if owner is None:
                return reason("no_piece_no_capture", cell=move.cells[0])
            if owner != side:
                return reason("not_yours_no_capture", cell=move.cells[0])
            route_error = self._route_error(move)
            if route_error:
                return reason("not_a_route", move=str(move), why=route_error)
            return reason("no_capture_here", move=str(move))  # pragma: no cover
        if move.kind == "enter":
            cell = move.cells[0]
            g = move.path[0]
            if not hand:
                return reason("nothing_in_hand")
            if self._owner(cell) is not None:
                return reason("enter_occupied", cell=cell)
            if g == CENTRE and self._ply == 0:
                return reason("first_move_centre")
            return reason("feeding", cell=cell, them=them, attacker=self._attacker_of(g))
        # a step
        src, dst = move.cells
        if hand:
            return reason("men_in_hand", num=hand)
        owner = self._owner(src)
        if owner is None:
            return reason("no_piece", cell=src)
        if owner != side:
            return reason("not_yours", cell=src)
        return reason("step_occupied", cell=dst)

    def _route_error(self, move: Move) -> Reason | None:
        """Why the written route is no capture route on this board, if it is not one.

        Walks the route on a scratch copy of the cells, taking men as it goes, and names the
        first jump that fails: not a jump at all, straight back, nothing to jump, or an
        occupied landing cell.
        """
        sign = 1 - 2 * self._side
        cells = list(self._cells)
        cells[NUMBER[move.path[0]]] = 0  # the start cell is vacant once the piece leaves
        back = -1
        for a, b in zip(move.path, move.path[1:], strict=False):
            jump = next(((d, over) for d, over, land in JUMPS[a] if land == b), None)
            if jump is None:
                return reason("not_a_jump", start=NAME[a], end=NAME[b])
            d, over = jump
            if d == back:
                return reason("jump_back", start=NAME[a], end=NAME[b])
            enemy = -cells[NUMBER[over]] * sign
            if enemy <= 0:
                return reason(
                    "jump_own" if enemy else "jump_nothing",
                    start=NAME[a],
                    end=NAME[b],
                    over=NAME[over],
                )
            if cells[NUMBER[b]]:
                return reason("land_occupied", start=NAME[a], end=NAME[b])
            left, prisoners = (enemy & 31) - 1, enemy >> 5
            if left:
                cells[NUMBER[over]] = -sign * (left | prisoners << 5)
            else:
                cells[NUMBER[over]] = sign * prisoners
            back = OPPOSITE[d]
        return None

    def _owner(self, cell: str) -> int | None:
        value = self._cells[NUMBER[INDEX[cell]]]
        if not value:
            return None
        return 0 if value > 0 else 1

    def _attacker_of(self, g: int) -> str:
        theirs = self._masks[1 - self._side]
        vacant = VALID & ~(self._masks[0] | self._masks[1])
        for d, n in STEPS[g]:
            beyond = g - DIRECTIONS[d]
            if theirs >> n & 1 and NUMBER[beyond] >= 0 and vacant >> beyond & 1:
                return NAME[n]
        return "?"  # pragma: no cover - only called for unsafe cells

    # ------------------------------------------------------------------ text form

    def to_text(self) -> str:
        """One line holding the whole state: side to move, hands, ply, columns.

        For example ``x 7 6 11 c4=o3x5,d4=o2`` (``-`` for an empty board).
        """
        return (
            f"{LETTERS[self._side]} {self._hands[0]} {self._hands[1]} {self._ply} "
            f"{self._cells_text()}"
        )

    def _cells_text(self) -> str:
        """The columns as ``c4=o3x5,d4=o2`` in cell order, ``-`` for an empty board."""
        parts = []
        for n, value in enumerate(self._cells):
            if value:
                item = _ITEMS[n].get(value)
                if item is None:
                    item = _ITEMS[n][value] = f"{CELLS[n]}={_column_code(value)}"
                parts.append(item)
        return ",".join(parts) or "-"

    @classmethod
    def from_text(cls, text: str) -> Position:
        """The position written by :meth:`to_text`. Raises ValueError on a malformed text."""
        parts = text.split()
        if len(parts) != 5 or parts[0] not in LETTERS:
            raise ValueError(f"not a position text: {text!r}")
        if not all(_NUMBER.fullmatch(part) for part in parts[1:4]):
            raise ValueError(
                f"not a position text: {text!r} (hands and ply are whole numbers, 0 or more)"
            )
        hands = (int(parts[1]), int(parts[2]))
        ply = int(parts[3])
        cells = [0] * len(CELLS)
        masks = [0, 0]
        men = list(hands)
        if parts[4] != "-":
            for item in parts[4].split(","):
                cell, _, code = item.partition("=")
                g = INDEX.get(cell)
                if g is None or cells[NUMBER[g]]:
                    raise ValueError(f"bad or repeated cell {cell!r} in {text!r}")
                owner, own, prisoners = _parse_code(code, text)
                cells[NUMBER[g]] = (1 - 2 * owner) * (own | prisoners << 5)
                masks[owner] |= 1 << g
                men[owner] += own
                men[1 - owner] += prisoners
        if max(men) > MEN_PER_SIDE:
            raise ValueError(f"more than {MEN_PER_SIDE} men of one colour in {text!r}")
        side = LETTERS.index(parts[0])
        return cls._make(
            tuple(cells), (masks[0], masks[1]), hands, side, ply,
            _full_zobrist(cells, hands, side),
        )


_NUMBER = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_CODE = re.compile(r"([ox])([1-9][0-9]?)(?:([ox])([1-9][0-9]?))?", re.ASCII)


def _parse_code(code: str, text: str) -> tuple[int, int, int]:
    """``o3x5`` -> (owner 0, 3 own men, 5 prisoners); plain ASCII digits, no leading zero."""
    match = _CODE.fullmatch(code)
    if not match or match[3] == match[1]:
        raise ValueError(f"bad column {code!r} in {text!r}")
    return LETTERS.index(match[1]), int(match[2]), int(match[4] or 0)


# Per cell number, the text of each column value seen there (``c4=o3x5``): a game's
# positions share few of them, so text forms are built from cached pieces.
_ITEMS: list[dict[int, str]] = [{} for _ in CELLS]


def _column_code(value: int) -> str:
    """The column code (``o3x5``) of a nonzero cell value."""
    col = _column(value)
    assert col is not None
    return col.code


def _column(value: int) -> Column | None:
    if not value:
        return None
    a = abs(value)
    return Column(WHITE if value > 0 else BLACK, a & 31, a >> 5)


Search = Callable[[int, int, int, int], tuple[int, list[tuple[int, ...]]]]


def _mix64(x: int) -> int:
    """SplitMix64's finaliser: a fixed, well-spread 64-bit value for each ``x``."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


_MASK64 = (1 << 64) - 1
# Zobrist keys: per cell number, per cell value (filled on first use; 0 for vacant), per
# side and count of men in hand, and for Black to move. Derived from fixed numbers, so
# every process hashes a position alike.
_Z_CELLS: list[dict[int, int]] = [{0: 0} for _ in CELLS]
_Z_HANDS: tuple[tuple[int, ...], tuple[int, ...]] = (
    tuple(_mix64(1 << 20 | n) for n in range(MEN_PER_SIDE + 1)),
    tuple(_mix64(2 << 20 | n) for n in range(MEN_PER_SIDE + 1)),
)
_Z_SIDE = _mix64(3 << 20)


def _zobrist(n: int, value: int) -> int:
    """The Zobrist key of cell number ``n`` holding ``value``."""
    table = _Z_CELLS[n]
    key = table.get(value)
    if key is None:
        key = table[value] = _mix64(n << 12 | (value + 1024))
    return key


def _full_zobrist(cells: Sequence[int], hands: tuple[int, int], side: int) -> int:
    """The Zobrist hash of a position computed from scratch."""
    zobrist = _Z_HANDS[0][hands[0]] ^ _Z_HANDS[1][hands[1]] ^ (_Z_SIDE if side else 0)
    for n, value in enumerate(cells):
        if value:
            zobrist ^= _zobrist(n, value)
    return zobrist


class _TooManyNodes(Exception):
    """The plain capture search went on too long: the memoised one takes over."""


#: Nodes the plain capture search may visit before the memoised search takes over. Random
#: games stay far below it (a route of one or two jumps visits a handful); positions built
#: to have thousands of routes reach it in well under a millisecond.
_PLAIN_NODES = 400

# Per grid index: (direction, jumped grid index, landing grid index, jumped cell number).
_JUMPS_N: tuple[tuple[tuple[int, int, int, int], ...], ...] = tuple(
    tuple((d, over, land, NUMBER[over]) for d, over, land in jumps) for jumps in JUMPS
)


def _plain_routes(
    cells: list[int], sign: int, cur: int, back: int, vacant: int, budget: list[int]
) -> tuple[int, list[tuple[int, ...]]]:
    """The most men a piece on ``cur`` can still take and every route (landing cells) that
    takes them. ``cells`` is changed during the search and restored; ``sign`` is +1 when
    White captures; ``back`` is the direction the piece may not turn back along."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooManyNodes
    best = 0
    routes = _LEAF
    for d, over, land, n_over in _JUMPS_N[cur]:
        if d == back or not vacant >> land & 1:
            continue
        value = cells[n_over]
        enemy = -value * sign
        if enemy <= 0:
            continue
        left = (enemy & 31) - 1
        if left:
            cells[n_over] = -sign * left  # only the men left to take matter here
            after = vacant
        else:
            cells[n_over] = 0
            # Emptied, or its prisoners are freed and the cell stays full.
            after = vacant if enemy >> 5 else vacant | 1 << over
        size, tails = _plain_routes(cells, sign, land, OPPOSITE[d], after, budget)
        cells[n_over] = value
        size += 1
        if size > best:
            best = size
            routes = [(land, *tail) for tail in tails]
        elif size == best:
            routes.extend((land, *tail) for tail in tails)
    return best, routes


# Capture moves of one or two jumps (most of them in play), built once.
_CAPTURES: dict[tuple[int, ...], Move] = {}


def _capture_move(path: tuple[int, ...]) -> Move:
    move = _CAPTURES.get(path)
    if move is None:
        move = Move.from_path("capture", path)
        if len(path) <= 3:
            _CAPTURES[path] = move
    return move


def _route_search(slot: dict[int, int], freed_if_empty: dict[int, bool]) -> Search:
    """A memoised search of the longest capture routes from one start cell.

    The returned function maps (cell, forbidden direction, vacant mask, enemy state) to the
    most men still to be taken from there and every route (tuple of landing cells) that
    takes them. The vacant mask is determined by the enemy state for a given start, so it
    is not part of the memo key.
    """
    memo: dict[tuple[int, int, int], tuple[int, list[tuple[int, ...]]]] = {}

    def search(cur: int, back: int, vacant: int, state: int) -> tuple[int, list[tuple[int, ...]]]:
        key = (cur, back, state)
        hit = memo.get(key)
        if hit is not None:
            return hit
        best = 0
        routes = _LEAF
        for d, over, land in JUMPS[cur]:
            if d == back or not vacant >> land & 1:
                continue
            at = slot.get(over)
            if at is None:
                continue
            left = state >> at & 31
            if not left:
                continue
            after = vacant | (1 << over) if left == 1 and freed_if_empty[over] else vacant
            size, tails = search(land, OPPOSITE[d], after, state - (1 << at))
            size += 1
            if size > best:
                best = size
                routes = [(land, *tail) for tail in tails]
            elif size == best:
                routes.extend((land, *tail) for tail in tails)
        result = (best, routes)
        memo[key] = result
        return result

    return search
