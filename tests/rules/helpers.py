"""Building positions for the rules tests, and bridging the engine to the reference.

Columns are written as in ``Position.to_text``: cap colour and count, then the prisoners'
colour and count: ``"o3x5"`` is three white men on top of five black men, ``"x1"`` one
black man.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from pbm_emergo.rules import CELLS, WHITE, Position

from .reference import BLACK, RefPosition

_CODE = re.compile(r"^([ox])(\d+)(?:([ox])(\d+))?$")
_SIDE = {"o": WHITE, "x": BLACK}


def position(
    cells: dict[str, str],
    *,
    white: int = 0,
    black: int = 0,
    to_move: str = WHITE,
    ply: int = 20,
) -> Position:
    """An engine position: `cells` maps cell names to column codes, hands default to 0."""
    unknown = set(cells) - set(CELLS)
    assert not unknown, f"not cells: {unknown}"
    body = ",".join(f"{cell}={cells[cell]}" for cell in CELLS if cell in cells) or "-"
    side = "o" if to_move == WHITE else "x"
    return Position.from_text(f"{side} {white} {black} {ply} {body}")


def men_of(code: str) -> list[str]:
    """A column code as a list of men, bottom to top (the reference's representation)."""
    match = _CODE.match(code)
    assert match, code
    cap, own, other, prisoners = match.groups()
    below = [_SIDE[other]] * int(prisoners) if other else []
    return below + [_SIDE[cap]] * int(own)


def to_reference(pos: Position) -> RefPosition:
    """The reference position equal to an engine position, read through the public API."""
    board: dict[str, list[str]] = {}
    for cell, col in pos.columns().items():
        enemy = BLACK if col.owner == WHITE else WHITE
        board[cell] = [enemy] * col.prisoners + [col.owner] * col.own
    return RefPosition(
        board,
        {WHITE: pos.in_hand(WHITE), BLACK: pos.in_hand(BLACK)},
        pos.to_move,
        pos.ply,
    )


def moves(pos: Position) -> list[str]:
    """The engine's legal moves in canonical notation, in the engine's order."""
    return [str(m) for m in pos.legal_moves()]


def random_game(seed: int, max_plies: int = 400) -> Iterator[Position]:
    """The positions of a random game (uniform legal moves), from the start position."""
    rng = random.Random(seed)
    pos = Position()
    yield pos
    for _ in range(max_plies):
        legal = pos.legal_moves()
        if not legal:
            return
        pos = pos.play(rng.choice(legal))
        yield pos
