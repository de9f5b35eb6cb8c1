"""The errors a move can raise. All are ValueErrors, each with its own reply to the player."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbm_emergo.rules.move import Move


class MoveError(ValueError):
    """Base class of every error about a move."""


class InvalidMoveError(MoveError):
    """The text is not a move at all (bad syntax, not a cell)."""


class IllegalMoveError(MoveError):
    """A well-formed move that is not legal in the position; the message says why."""


class AmbiguousMoveError(MoveError):
    """A short capture form that matches several legal routes."""

    def __init__(self, message: str, candidates: list[Move]) -> None:
        super().__init__(message)
        self.candidates = candidates


class GameOverError(IllegalMoveError):
    """The game is over: no move can be played."""
