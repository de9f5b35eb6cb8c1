"""A game: the moves so far, the positions they led to, and how the game ended.

A game is either played from the start (:class:`Game`, :meth:`Game.from_moves`) or resumed
from stored state (:meth:`Game.resume`): the current position's :meth:`Position.to_text`
and the game's :meth:`Game.repetition_history`, which is all threefold repetition needs.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pbm_emergo.rules.errors import GameOverError
from pbm_emergo.rules.move import Move
from pbm_emergo.rules.position import SIDES, Position

BlockedRule = Literal["loss", "draw"]


class Termination(enum.StrEnum):
    """Every way an Emergo game ends on this server.

    The values are the words stored in the database (``boards.outcome_reason``): keep them.
    The first four are decided by the board (:meth:`Game.outcome`), the others by commands.
    """

    #: The player to move has no piece and no man in hand: he loses.
    ELIMINATED = "eliminated"
    #: The player to move has pieces but no legal move and no man in hand: he loses, or
    #: draws under ``blocked="draw"``.
    BLOCKED = "blocked"
    #: The player to move has men in hand but no cell to enter them on (no capture either):
    #: he loses, or draws under ``blocked="draw"``.
    NO_LEGAL_ENTRY = "no legal entry"
    #: The same position (cells, hands, side to move) came up for the third time: a draw.
    REPETITION = "threefold repetition"
    #: A player resigned: the other wins.
    RESIGNED = "resigned"
    #: Both players agreed to a draw.
    DRAW_AGREED = "draw agreed"
    #: The player to move did not move in time: the other wins.
    FORFEIT = "forfeit"
    #: The server's operator decided the result (a win or a draw), with a reason.
    ADJUDICATED = "adjudicated"
    #: The server's operator annulled the game: no result (no win, loss or draw counted)
    #: and no rating change.
    VOIDED = "void"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winner`` is ``"white"``, ``"black"`` or None for a draw.

    ``termination`` may be given as its stored text (``Outcome(None, "draw agreed")``); it
    is kept as the :class:`Termination` member, and an unknown text raises ValueError.
    """

    winner: str | None
    termination: Termination

    def __post_init__(self) -> None:
        object.__setattr__(self, "termination", Termination(self.termination))

    @property
    def reason(self) -> str:
        """The termination as plain text; kept for callers written before ``termination``."""
        return str(self.termination)


# A key text as Position.key_text writes it: side, both hands, columns (or "-").
_COLUMN = r"[a-i][1-9]=[ox][1-9][0-9]?(?:[ox][1-9][0-9]?)?"
_KEY = re.compile(rf"([ox]) (0|[1-9][0-9]*) (0|[1-9][0-9]*) (-|{_COLUMN}(?:,{_COLUMN})*)", re.ASCII)


def _key_class(key: str) -> tuple[int, int]:
    """:meth:`Position.repetition_class` read from a key text; ValueError if malformed."""
    match = _KEY.fullmatch(key) if isinstance(key, str) else None
    if match is None:
        raise ValueError(f"not a position key: {key!r}")
    columns = 0 if match[4] == "-" else match[4].count(",") + 1
    return int(match[2]) + int(match[3]), columns


class Game:
    """A game from the start position, or resumed from stored state (:meth:`resume`).

    ``blocked="loss"`` (the pbmserv rule, default): a player to move with no legal move
    loses. ``blocked="draw"`` (the MindSports rule): a player who has no legal move but still
    has a piece or men in hand draws; a player with nothing left still loses.

    ``position`` is the current position. ``moves`` and ``positions`` hold what this object
    has seen: for a game from the start every move and every position (``positions[0]`` is
    the start); for a resumed game only the moves played since resuming, and ``positions[0]``
    is the position it was resumed from. ``resumed_at`` is that first position's ply (0 for
    a game from the start), so ``moves[i]`` is move number ``resumed_at + i + 1`` and
    ``position.ply == resumed_at + len(moves)``.
    """

    resumed_at: int

    def __init__(self, blocked: BlockedRule = "loss") -> None:
        start = Position()
        self._start(start, [start.key_text()], blocked)

    @classmethod
    def from_moves(cls, moves: Iterable[Move | str], blocked: BlockedRule = "loss") -> Game:
        """The game after playing ``moves`` from the start; raises like :meth:`play`."""
        game = cls(blocked)
        for move in moves:
            game.play(move)
        return game

    @classmethod
    def resume(
        cls,
        position: Position,
        history: Sequence[str],
        blocked: BlockedRule = "loss",
    ) -> Game:
        """The game whose current position is ``position``, without replaying its moves.

        ``history`` is what :meth:`repetition_history` returned for that position (a longer
        history, down to the key of every position since the start, is accepted too: keys
        of positions that cannot recur are dropped). The game then plays on and ends exactly
        as the game replayed from its moves would, including by threefold repetition; if the
        position already ended the game, :meth:`outcome` says so.

        Raises ValueError when ``history`` cannot be this position's: empty, a malformed
        key, last key not ``position.key_text()``, more keys than ``position.ply + 1``, the
        side to move not alternating, a key whose :meth:`Position.repetition_class` is more
        than the one before it (that never happens in a game), or a key seen three times
        before the last (that game was over).
        """
        if isinstance(history, str):
            raise TypeError("history is a sequence of key texts, not one string")
        keys = list(history)
        if not keys:
            raise ValueError("the repetition history is empty: it ends with the position's key")
        if keys[-1] != position.key_text():
            raise ValueError(
                f"the repetition history ends with {keys[-1]!r}, not with the position's key "
                f"{position.key_text()!r}"
            )
        if len(keys) > position.ply + 1:
            raise ValueError(
                f"{len(keys)} keys in the repetition history of a position after "
                f"{position.ply} moves"
            )
        classes = [_key_class(key) for key in keys]
        first = 0
        seen: Counter[str] = Counter()
        for i, key in enumerate(keys):
            if i and key[0] == keys[i - 1][0]:
                raise ValueError(
                    f"the same side is to move in {keys[i - 1]!r} and the next key {key!r}"
                )
            if i and classes[i] > classes[i - 1]:
                raise ValueError(f"{key!r} cannot follow {keys[i - 1]!r} in a game")
            if i and classes[i] != classes[i - 1]:
                first = i
            seen[key] += 1
            if seen[key] >= 3 and i < len(keys) - 1:
                raise ValueError(f"{key!r} occurs a third time before the end: the game was over")
        game = cls.__new__(cls)
        game._start(position, keys[first:], blocked)
        return game

    def _start(self, position: Position, history: list[str], blocked: BlockedRule) -> None:
        if blocked not in ("loss", "draw"):
            raise ValueError(f"blocked must be 'loss' or 'draw', not {blocked!r}")
        self.blocked: BlockedRule = blocked
        self.position = position
        self.positions: list[Position] = [position]
        self.moves: list[Move] = []
        self.resumed_at = position.ply
        # The positions since the repetition class last dropped, and how often each key
        # occurred among them. Positions played here are kept as objects and counted by
        # Position.key() (cheap); only while the keys of a resumed history are among them
        # (until the first entry or emptying capture) are they counted by key text.
        self._history: list[str | Position] = list(history)
        self._by_text = True
        self._seen: Counter[object] = Counter(history)
        self._class = position.repetition_class()
        self._outcome: Outcome | None = self._judge(position, history[-1])

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
        rep_class = position.repetition_class()
        if rep_class != self._class:
            # An entry, or a capture that emptied a cell: no earlier position can recur.
            self._class = rep_class
            self._history = []
            self._by_text = False
            self._seen.clear()
        self._outcome = self._judge(position, self._count(position))
        return move

    def _count(self, position: Position) -> object:
        """Add ``position`` to the repetition memory; return its counting key."""
        if self._by_text:
            text = position.key_text()
            key: object = text
            self._history.append(text)
        else:
            key = position.key()
            self._history.append(position)
        self._seen[key] += 1
        return key

    def outcome(self) -> Outcome | None:
        """None while the game goes on; else the winner (None for a draw) and how it ended."""
        return self._outcome

    def repetition_history(self) -> tuple[str, ...]:
        """The key texts of the positions that can still recur, oldest first.

        Every position since the last entry or the last capture that emptied a cell (see
        :meth:`Position.repetition_class`: earlier positions can never come back), repeated
        ones as often as they occurred, ending with ``position.key_text()``. Store it with
        ``position.to_text()``; :meth:`resume` takes both back.
        """
        return tuple(h if isinstance(h, str) else h.key_text() for h in self._history)

    def _judge(self, position: Position, key: object) -> Outcome | None:
        if self._seen[key] >= 3:
            return Outcome(None, Termination.REPETITION)
        if not position.legal_moves():
            return self._no_move_outcome(position)
        return None

    def _no_move_outcome(self, position: Position) -> Outcome:
        side = position.to_move
        other = SIDES[1 - SIDES.index(side)]
        has_pieces = any(col.owner == side for col in position.columns().values())
        in_hand = position.in_hand(side)
        if not has_pieces and not in_hand:
            return Outcome(other, Termination.ELIMINATED)
        termination = Termination.NO_LEGAL_ENTRY if in_hand else Termination.BLOCKED
        return Outcome(None if self.blocked == "draw" else other, termination)

    def _describe(self) -> str:
        assert self._outcome is not None
        if self._outcome.winner is None:
            return f"a draw by {self._outcome.termination}"
        return f"{self._outcome.winner} won: {self._outcome.termination}"
