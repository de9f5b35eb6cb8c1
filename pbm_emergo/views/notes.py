"""A writer's private notes as they follow a board they asked for, in the reader's
language (the notes themselves are the writer's own words)."""

from __future__ import annotations

from collections.abc import Sequence

from pbm_emergo.game.notes import Note
from pbm_emergo.views import i18n


def notes_text(notes: Sequence[Note]) -> str:
    """The writer's notes, in move order ("" for none)."""
    if not notes:
        return ""
    lines = [i18n._("Your notes (only you see them):")]
    for note in sorted(notes, key=lambda n: (n.ply, n.at)):
        where = (
            i18n._("after move %(number)s", number=note.ply) if note.ply
            else i18n._("before the first move")
        )
        first, *rest = note.text.splitlines()
        lines.append(f"  {where}: {first}")
        lines.extend(f"    {line}" for line in rest)
    return "\n".join(lines) + "\n"
