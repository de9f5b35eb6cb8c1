"""Private notes on a game (``emergo note``) on values: what may be noted (how a writer's
notes read under a board they asked for is :func:`pbm_emergo.views.notes.notes_text`).

A note belongs to its writer alone: ``emergo show`` and ``emergo record`` add the notes of
the player whose registered address the request came from, and nobody else's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules.reasons import Reason

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


def note_refusal(text: str, count: int) -> Reason | None:
    """Why the note ``text`` (cleaned) is not kept by a player who has ``count`` notes on
    the board, or None."""
    if not text:
        return refusal("note_empty")
    if len(text) > MAX_NOTE_CHARS:
        return refusal("note_too_long", most=MAX_NOTE_CHARS, length=len(text))
    if count >= MAX_NOTES:
        return refusal("notes_full", most=MAX_NOTES)
    return None

