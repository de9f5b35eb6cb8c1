"""Private notes on values: what is kept, what is refused (how they read:
tests/views/test_notes.py)."""

from __future__ import annotations

from pbm_emergo.game.notes import (
    MAX_NOTE_CHARS,
    MAX_NOTES,
    clean_note,
    note_refusal,
)


def test_a_note_is_kept_without_blank_lines_and_within_its_limits() -> None:
    assert clean_note("  watch c5 \n\n  then e4  \n") == "watch c5\nthen e4"
    assert note_refusal("watch c5", 0) is None
    assert note_refusal("", 0) is not None and "The note is empty" in str(note_refusal("", 0))
    assert str(note_refusal("x" * (MAX_NOTE_CHARS + 1), 0)) == (
        f"A note has at most {MAX_NOTE_CHARS} characters; this one has {MAX_NOTE_CHARS + 1}."
    )
    assert note_refusal("ok", MAX_NOTES) is not None

