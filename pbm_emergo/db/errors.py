"""What the data layer refuses, as exceptions whose text is a plain sentence for a reply.

:class:`Conflict` and its subclasses mean "what the caller read has changed since": a write
transaction that re-checks a precondition (the board's move count, the board still active, a
userid still free, a player's rating) raises it, rolls back, and the caller starts over from
a fresh read.
"""

from __future__ import annotations


class ServiceError(Exception):
    """A request the data does not allow; ``str(err)`` is a plain sentence for the reply."""


class Conflict(ServiceError):
    """The data changed between the read a change was computed from and its write."""


class UseridTakenError(Conflict):
    pass


class BoardNumberTaken(Conflict):
    """The board number a challenge read as the next one was taken by another board first."""


class BoardFinishedError(Conflict):
    pass


class StaleMoveError(Conflict):
    """The board moved on: the move was computed for ``expected_ply`` moves played, but the
    board has ``actual_ply`` (another move was committed first). Nothing was changed."""

    def __init__(self, board_number: int, expected_ply: int, actual_ply: int | None) -> None:
        self.board_number = board_number
        self.expected_ply = expected_ply
        self.actual_ply = actual_ply
        expected = f"move {actual_ply + 1}" if actual_ply is not None else "a later move"
        super().__init__(
            f"Board {board_number} has changed: your move would have been move "
            f"{expected_ply + 1}, but the next move is {expected}."
        )


__all__ = [
    "BoardFinishedError",
    "BoardNumberTaken",
    "Conflict",
    "ServiceError",
    "StaleMoveError",
    "UseridTakenError",
]
