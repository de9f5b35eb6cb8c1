"""The errors a move can raise. All are ValueErrors, each with its own reply to the player."""

from __future__ import annotations

from pbm_emergo.rules.reasons import Reason


class MoveError(ValueError):
    """Base class of every error about a move. Raised with a :class:`Reason`, its message is
    the reason's English sentence and ``reason`` the value (the shell says it in the
    player's language); raised with a plain message, ``reason`` is None."""

    def __init__(self, message: str | Reason) -> None:
        super().__init__(str(message))
        self.reason = message if isinstance(message, Reason) else None


class InvalidMoveError(MoveError):
    """The text is not a move at all (bad syntax, not a cell)."""


class IllegalMoveError(MoveError):
    """A well-formed move that is not legal in the position; the message says why."""


class AmbiguousMoveError(MoveError):
    """A short capture form that matches several legal routes; ``candidates`` are those
    routes, each written in full."""

    def __init__(self, message: str | Reason, candidates: tuple[str, ...]) -> None:
        super().__init__(message)
        self.candidates = candidates


class GameOverError(IllegalMoveError):
    """The game is over: no move can be played."""
