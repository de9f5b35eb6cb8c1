"""The Emergo rules engine: pure, standard library only, no I/O.

Everything the server needs is importable from here::

    from pbm_emergo.rules import Game, Position, render_board
"""

from pbm_emergo.rules.board import CELLS
from pbm_emergo.rules.errors import (
    AmbiguousMoveError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
)
from pbm_emergo.rules.game import (
    BLOCKED,
    ELIMINATED,
    NO_LEGAL_ENTRY,
    REPETITION,
    BlockedRule,
    Game,
    Outcome,
)
from pbm_emergo.rules.move import Move, MoveKind
from pbm_emergo.rules.position import BLACK, WHITE, Column, Position
from pbm_emergo.rules.render import render_board

__all__ = [
    "BLACK",
    "BLOCKED",
    "CELLS",
    "ELIMINATED",
    "NO_LEGAL_ENTRY",
    "REPETITION",
    "WHITE",
    "AmbiguousMoveError",
    "BlockedRule",
    "Column",
    "Game",
    "GameOverError",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "MoveError",
    "MoveKind",
    "Outcome",
    "Position",
    "render_board",
]
