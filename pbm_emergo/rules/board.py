"""Board geometry: the 41 cells of the Emergo diamond and their neighbours.

Cells are named by row letter ``a``..``i`` (top to bottom) and column digit ``1``..``9``
(left to right); cell (r, c), both counted from 0, exists iff ``|r-4| + |c-4| <= 4``.

Internally a cell has two numbers:

* its *number* ``0..40`` in row-major order, which is also the sorted order of the names,
  used to index the per-cell tuple of a position;
* its *grid index* on an 11-wide padded grid, used as a bit position in bitmasks, so that a
  neighbour is a fixed offset away and a whole-board question ("which of my pieces can
  jump?") is a few integer operations. Padding (two rows above and below, one column either
  side) keeps every offset of one or two steps inside the grid without wrapping onto a cell.
"""

from __future__ import annotations

ROWS = "abcdefghi"
WIDTH = 11
#: Offsets of the four directions on the grid: up, left, right, down. This order is also
#: the sorted order of the target cell's name relative to the source cell.
DIRECTIONS: tuple[int, int, int, int] = (-WIDTH, -1, 1, WIDTH)
#: ``OPPOSITE[d]`` is the index of the direction opposite to direction index ``d``.
OPPOSITE: tuple[int, int, int, int] = (3, 2, 1, 0)


def _grid(r: int, c: int) -> int:
    return (r + 2) * WIDTH + (c + 1)


def _exists(r: int, c: int) -> bool:
    return 0 <= r <= 8 and 0 <= c <= 8 and abs(r - 4) + abs(c - 4) <= 4


_cells: list[str] = []
_grid_of: list[int] = []
for _r in range(9):
    for _c in range(9):
        if _exists(_r, _c):
            _cells.append(f"{ROWS[_r]}{_c + 1}")
            _grid_of.append(_grid(_r, _c))

#: The 41 cell names in row-major (and sorted) order.
CELLS: tuple[str, ...] = tuple(_cells)
#: Cell number -> grid index.
GRID: tuple[int, ...] = tuple(_grid_of)
GRID_SIZE = _grid(8, 8) + 2 * WIDTH + 2
#: Grid index -> cell number, or -1 off the board.
NUMBER: tuple[int, ...] = tuple(
    _grid_of.index(g) if g in _grid_of else -1 for g in range(GRID_SIZE)
)
#: Cell name -> grid index.
INDEX: dict[str, int] = {name: g for name, g in zip(CELLS, GRID, strict=True)}
#: Grid index -> cell name ("" off the board).
NAME: tuple[str, ...] = tuple(CELLS[n] if n >= 0 else "" for n in NUMBER)

#: Bitmask of every cell on the board.
VALID: int = sum(1 << g for g in GRID)
#: Bitmask of the rim: cells with fewer than four neighbours (never capturable).
RIM: int = sum(
    1 << g for g in GRID if any(NUMBER[g + d] < 0 for d in DIRECTIONS)
)
CENTRE: int = INDEX["e5"]

#: ``STEPS[g]``: tuple of (direction index, neighbour grid index) for each neighbour of g.
STEPS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((d, g + off) for d, off in enumerate(DIRECTIONS) if 0 <= g + off < GRID_SIZE
          and NUMBER[g + off] >= 0)
    if 0 <= g < GRID_SIZE and NUMBER[g] >= 0 else ()
    for g in range(GRID_SIZE)
)
#: ``JUMPS[g]``: tuple of (direction index, jumped grid index, landing grid index).
JUMPS: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple((d, g + off, g + 2 * off) for d, off in enumerate(DIRECTIONS)
          if 0 <= g + 2 * off < GRID_SIZE and NUMBER[g + 2 * off] >= 0)
    if NUMBER[g] >= 0 else ()
    for g in range(GRID_SIZE)
)

#: For extracting set bits row by row: (shift, {9-bit pattern: tuple of grid indices}).
ROW_SHIFTS: tuple[int, ...] = tuple(_grid(r, 0) for r in range(9))


def shift(mask: int, offset: int) -> int:
    """The mask of cells ``g`` such that ``g + offset`` is in ``mask``."""
    return mask >> offset if offset > 0 else mask << -offset


def bits(mask: int) -> list[int]:
    """Grid indices of the set bits of ``mask``, in increasing (sorted-name) order."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def are_neighbours(a: int, b: int) -> bool:
    return any(n == b for _, n in STEPS[a])
