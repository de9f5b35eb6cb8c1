"""A game: the moves so far, the positions they led to, and how the game ended."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pbm_emergo.rules.errors import GameOverError
from pbm_emergo.rules.move import Move
from pbm_emergo.rules.position import SIDES, Position

BlockedRule = Literal["loss", "draw"]

ELIMINATED = "eliminated"
BLOCKED = "blocked"
NO_LEGAL_ENTRY = "no legal entry"
REPETITION = "threefold repetition"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winner`` is ``"white"``, ``"black"`` or None for a draw."""

    winner: str | None
    reason: str


class Game:
    """A game from the start position.

    ``blocked="loss"`` (the pbmserv rule, default): a player to move with no legal move
    loses. ``blocked="draw"`` (the MindSports rule): a player who has no legal move but still
    has a piece or men in hand draws; a player with nothing left still loses.
    """

    def __init__(self, blocked: BlockedRule = "loss") -> None:
        if blocked not in ("loss", "draw"):
            raise ValueError(f"blocked must be 'loss' or 'draw', not {blocked!r}")
        self.blocked: BlockedRule = blocked
        self.position = Position()
        self.positions: list[Position] = [self.position]
        self.moves: list[Move] = []
        self._seen: Counter[tuple[object, ...]] = Counter({self.position.key(): 1})
        self._outcome: Outcome | None = None

    @classmethod
    def from_moves(cls, moves: Iterable[Move | str], blocked: BlockedRule = "loss") -> Game:
        """The game after playing ``moves`` from the start; raises like :meth:`play`."""
        game = cls(blocked)
        for move in moves:
            game.play(move)
        return game

    def play(self, move: Move | str) -> Move:
        """Play a legal move (a Move or notation) and return it in canonical form."""
        if self._outcome is not None:
            raise GameOverError(f"The game is over ({self._describe()}): no more moves.")
        if isinstance(move, str) or move not in self.position.legal_moves():
            move = self.position.parse_move(str(move))
        position = self.position.play(move)
        self.position = position
        self.positions.append(position)
        self.moves.append(move)
        key = position.key()
        self._seen[key] += 1
        if self._seen[key] >= 3:
            self._outcome = Outcome(None, REPETITION)
        elif not position.legal_moves():
            self._outcome = self._no_move_outcome(position)
        return move

    def outcome(self) -> Outcome | None:
        """None while the game goes on; else the winner (None for a draw) and the reason."""
        return self._outcome

    def _no_move_outcome(self, position: Position) -> Outcome:
        side = position.to_move
        other = SIDES[1 - SIDES.index(side)]
        has_pieces = any(col.owner == side for col in position.columns().values())
        in_hand = position.in_hand(side)
        if not has_pieces and not in_hand:
            return Outcome(other, ELIMINATED)
        reason = NO_LEGAL_ENTRY if in_hand else BLOCKED
        return Outcome(None if self.blocked == "draw" else other, reason)

    def _describe(self) -> str:
        assert self._outcome is not None
        if self._outcome.winner is None:
            return f"a draw by {self._outcome.reason}"
        return f"{self._outcome.winner} won: {self._outcome.reason}"
