"""A writer's private notes as they follow a board: in move order, in the reader's
language, the notes themselves as written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pbm_emergo.game.notes import Note
from pbm_emergo.views import i18n
from pbm_emergo.views.notes import notes_text

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
NOTES = [
    Note(7, "the trap worked\nnext time faster", NOW + timedelta(hours=1)),
    Note(0, "play the centre", NOW),
    Note(7, "earlier on move 7", NOW),
]


def test_notes_read_in_move_order_under_the_board() -> None:
    assert notes_text(NOTES) == (
        "Your notes (only you see them):\n"
        "  before the first move: play the centre\n"
        "  after move 7: earlier on move 7\n"
        "  after move 7: the trap worked\n"
        "    next time faster\n"
    )
    assert notes_text([]) == ""


def test_notes_read_in_the_readers_language() -> None:
    with i18n.speaking("de"):
        text = notes_text(NOTES)
    assert "play the centre" in text and "next time faster" in text
    assert "Your notes" not in text and "after move" not in text
