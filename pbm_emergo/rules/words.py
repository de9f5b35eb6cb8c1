"""The position in words, for players who listen to their mail (a screen reader).

The diamond of :func:`pbm_emergo.rules.render_board` is two-dimensional art that a screen
reader reads as noise. :func:`position_words` says the same position as short lines, row by
row from the top (``a``) to the bottom (``i``), each occupied cell on a line of its own::

    Row e:
      e4: Ohs column of 3, 1 Eks prisoner
      e5: Eks man

The wording, exactly (docs/commands.md, ``board``, describes it for players):

- ``Row a: empty`` for a row without a piece; else ``Row e:`` and one line per piece.
- A piece: its cell, then ``Ohs man`` / ``Eks man`` (a single man of its owner's colour),
  or ``Ohs column of N`` (N men of the owner's colour, N >= 2), then, if it holds
  prisoners, ``, 1 Eks prisoner`` / ``, K Eks prisoners`` (enemy men under them). The
  number in "column of N" counts the owner's men only, never the prisoners.
- ``In hand: Ohs N, Eks M``.
- ``Last move: e4xc4, by Ohs`` (when there is one).
- ``Ohs to move, 1 legal move`` / ``Eks to move, 12 legal moves``.

Pure: it reads the position and nothing else, so tests read it back against the engine.
"""

from __future__ import annotations

from pbm_emergo.rules.board import CELLS, ROWS
from pbm_emergo.rules.position import BLACK, WHITE, Column, Position

#: The sides as every reply names them (o and x are only the diagram's key).
SIDE_WORDS = {WHITE: "Ohs", BLACK: "Eks"}


def piece_words(column: Column) -> str:
    """One piece: ``Ohs man``, ``Ohs column of 3``, ``Ohs column of 3, 1 Eks prisoner``."""
    owner = SIDE_WORDS[column.owner]
    enemy = SIDE_WORDS[BLACK if column.owner == WHITE else WHITE]
    text = f"{owner} man" if column.own == 1 else f"{owner} column of {column.own}"
    if column.prisoners == 1:
        text += f", 1 {enemy} prisoner"
    elif column.prisoners:
        text += f", {column.prisoners} {enemy} prisoners"
    return text


def position_lines(position: Position, last_move: str | None = None) -> list[str]:
    """The lines of :func:`position_words`, without line ends."""
    columns = position.columns()
    lines: list[str] = []
    for row in ROWS:
        cells = [cell for cell in CELLS if cell[0] == row and cell in columns]
        if not cells:
            lines.append(f"Row {row}: empty")
            continue
        lines.append(f"Row {row}:")
        lines.extend(f"  {cell}: {piece_words(columns[cell])}" for cell in cells)
    lines.append(f"In hand: Ohs {position.in_hand(WHITE)}, Eks {position.in_hand(BLACK)}")
    if last_move:
        mover = BLACK if position.to_move == WHITE else WHITE
        lines.append(f"Last move: {last_move}, by {SIDE_WORDS[mover]}")
    count = len(position.legal_moves())
    moves = "1 legal move" if count == 1 else f"{count} legal moves"
    lines.append(f"{SIDE_WORDS[position.to_move]} to move, {moves}")
    return lines


def position_words(position: Position, last_move: str | None = None) -> str:
    """The position in words, row by row (see the module's description for the wording);
    ``last_move``: the notation of the move that led to it, if any."""
    return "\n".join(position_lines(position, last_move)) + "\n"


__all__ = ["SIDE_WORDS", "piece_words", "position_lines", "position_words"]
