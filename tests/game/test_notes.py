"""Private notes on values: what is kept, what is refused, how they read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pbm_emergo.game.notes import (
    MAX_NOTE_CHARS,
    MAX_NOTES,
    Note,
    clean_note,
    note_refusal,
    notes_text,
)

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_a_note_is_kept_without_blank_lines_and_within_its_limits() -> None:
    assert clean_note("  watch c5 \n\n  then e4  \n") == "watch c5\nthen e4"
    assert note_refusal("watch c5", 0) is None
    assert note_refusal("", 0) is not None and "The note is empty" in str(note_refusal("", 0))
    assert note_refusal("x" * (MAX_NOTE_CHARS + 1), 0) == (
        f"A note has at most {MAX_NOTE_CHARS} characters; this one has {MAX_NOTE_CHARS + 1}."
    )
    assert note_refusal("ok", MAX_NOTES) is not None


def test_notes_read_in_move_order_under_the_board() -> None:
    notes = [
        Note(7, "the trap worked\nnext time faster", NOW + timedelta(hours=1)),
        Note(0, "play the centre", NOW),
        Note(7, "earlier on move 7", NOW),
    ]
    assert notes_text(notes) == (
        "Your notes (only you see them):\n"
        "  before the first move: play the centre\n"
        "  after move 7: earlier on move 7\n"
        "  after move 7: the trap worked\n"
        "    next time faster\n"
    )
    assert notes_text([]) == ""
