"""The Emergo rules engine: pure, standard library only, no I/O.

Everything the server needs is importable from here::

    from pbm_emergo.rules import Game, Position, render_board

A game in the database is its current ``Position.to_text()`` and its
``Game.repetition_history()``; ``Game.resume`` continues it without replaying its moves.
"""

from pbm_emergo.rules.board import CELLS
from pbm_emergo.rules.errors import (
    AmbiguousMoveError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
)
from pbm_emergo.rules.game import BlockedRule, Game, Outcome, Termination
from pbm_emergo.rules.move import Move, MoveKind
from pbm_emergo.rules.position import BLACK, WHITE, Column, Position
from pbm_emergo.rules.render import render_board
from pbm_emergo.rules.words import position_words

__all__ = [
    "BLACK",
    "CELLS",
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
    "Termination",
    "position_words",
    "render_board",
]
