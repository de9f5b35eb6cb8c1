"""Moves as small hashable values, and the syntax of move notation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from pbm_emergo.rules.board import INDEX, NAME, are_neighbours
from pbm_emergo.rules.errors import InvalidMoveError
from pbm_emergo.rules.reasons import reason

MoveKind = Literal["enter", "step", "capture"]

_CELL = r"[a-i][1-9]"
_SEP = r"\s*[-x:]\s*"
_MOVE_RE = re.compile(rf"^({_CELL})((?:{_SEP}{_CELL})*)(?:\s*x)?$")
_CELL_RE = re.compile(_CELL)


@dataclass(frozen=True, slots=True)
class Move:
    """One move in notation: an entry, a step, or a capture route.

    ``cells`` is ``(cell,)`` for an entry, ``(from, to)`` for a step, and the start cell
    followed by every landing cell for a capture. ``str(move)`` is the canonical notation.
    """

    kind: MoveKind
    cells: tuple[str, ...]
    # Grid indices of ``cells``, for the engine; not part of the value.
    path: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def __str__(self) -> str:
        if self.kind == "enter":
            return self.cells[0]
        if self.kind == "step":
            return f"{self.cells[0]}-{self.cells[1]}"
        return "x".join(self.cells)

    @property
    def captures(self) -> int:
        """How many men a capture takes (one a jump); 0 for other moves."""
        return len(self.cells) - 1 if self.kind == "capture" else 0

    @classmethod
    def from_path(cls, kind: MoveKind, path: tuple[int, ...]) -> Move:
        return cls(kind, tuple(NAME[g] for g in path), path)

    @classmethod
    def from_text(cls, text: str) -> Move:
        """Parse notation without looking at a position (syntax only).

        Accepts any case, ``-``, ``x`` or ``:`` between cells and a trailing ``x``. Two
        neighbouring cells make a step; two or more cells otherwise make a capture as
        written (possibly the short start-and-end form of a longer route).
        """
        cleaned = text.strip().lower()
        match = _MOVE_RE.match(cleaned)
        if not match:
            raise InvalidMoveError(reason("not_a_move", text=repr(text.strip())))
        names = [match.group(1), *_CELL_RE.findall(match.group(2))]
        for name in names:
            if name not in INDEX:
                raise InvalidMoveError(reason("not_a_cell", cell=name))
        path = tuple(INDEX[name] for name in names)
        if len(path) == 1:
            return cls("enter", (names[0],), path)
        if len(path) == 2 and are_neighbours(path[0], path[1]):
            return cls("step", (names[0], names[1]), path)
        return cls("capture", tuple(names), path)
