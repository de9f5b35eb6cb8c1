"""Private notes on a game (``emergo note``) on values: what may be noted, and how a
writer's notes read under a board they asked for.

A note belongs to its writer alone: ``emergo show`` and ``emergo record`` add the notes of
the player whose registered address the request came from, and nobody else's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

# A note's length, and how many notes one player keeps on one board.
MAX_NOTE_CHARS = 1000
MAX_NOTES = 50


@dataclass(frozen=True)
class Note:
    """A note as stored: after which move (the board's ply then), its text, when."""

    ply: int
    text: str
    at: datetime


@dataclass(frozen=True)
class NoteAdded:
    """A note by ``player_id`` on ``board`` after move ``ply``; re-checked: the player
    has fewer than ``limit`` notes on the board."""

    board: int
    player_id: int
    ply: int
    text: str
    at: datetime
    limit: int = MAX_NOTES


def clean_note(text: str) -> str:
    """The note as kept: its lines stripped, blank ones dropped."""
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def note_refusal(text: str, count: int) -> str | None:
    """Why the note ``text`` (cleaned) is not kept by a player who has ``count`` notes on
    the board, or None."""
    if not text:
        return (
            "The note is empty: write it after the password (emergo note BOARD USERID "
            "PASSWORD TEXT), or in the body of the mail."
        )
    if len(text) > MAX_NOTE_CHARS:
        return f"A note has at most {MAX_NOTE_CHARS} characters; this one has {len(text)}."
    if count >= MAX_NOTES:
        return f"You have {MAX_NOTES} notes on this board already, the most one player keeps."
    return None


def notes_text(notes: Sequence[Note]) -> str:
    """The writer's notes as they follow a board they asked for ("" for none)."""
    if not notes:
        return ""
    lines = ["Your notes (only you see them):"]
    for note in sorted(notes, key=lambda n: (n.ply, n.at)):
        where = f"after move {note.ply}" if note.ply else "before the first move"
        first, *rest = note.text.splitlines()
        lines.append(f"  {where}: {first}")
        lines.extend(f"    {line}" for line in rest)
    return "\n".join(lines) + "\n"
