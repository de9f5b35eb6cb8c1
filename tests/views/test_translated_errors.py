"""The error, help and analysis templates rendered in a language other than English: their
own sentences translated, the values (cells, moves, userids, numbers) as the locale writes
them, every line within 72 columns; in English exactly as written."""

from __future__ import annotations

from pbm_emergo.rules import IllegalMoveError, Position
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render
from tests.views.test_templates import ANALYSIS


def test_the_analysis_mail_renders_in_german() -> None:
    with i18n.speaking("de"):
        notes = render("analysis.txt.j2", **{**ANALYSIS, "nodes": i18n.count(123456)})
    assert notes.startswith("Die Anmerkungen der Engine zu Brett 101: alice (Ohs) gegen bob (Eks).")
    assert "\nZusammenfassung\n  alice (Ohs): 4 Züge, durchschnittlicher Verlust " in notes
    assert "\n    1 Ungenauigkeit, 0 Fehler, 0 Patzer\n" in notes
    assert "7. c5xc3 (bob), Patzer: verlor 2.60 Steine" in " ".join(notes.split())
    assert "Die Engine hat 123.456 Stellungen" in " ".join(notes.split())
    assert all(len(line) <= 72 for line in notes.splitlines())
    with i18n.speaking("de"):
        listed = render("analysis.txt.j2", **{**ANALYSIS, "listing": True})
    assert "  Zug 7, bob: c5xc3, Bewertung -2.10, ein Patzer.\n" in listed


def test_numbers_of_the_analysis_are_written_as_the_locale_writes_them() -> None:
    with i18n.speaking("de"):
        assert (i18n.decimal(1.35, signed=True), i18n.decimal(-2.1, signed=True)) == (
            "+1,35",
            "-2,10",
        )
        assert i18n.count(1234567) == "1.234.567"
    with i18n.speaking("en"):
        assert (i18n.decimal(1.35, signed=True), i18n.decimal(0.1)) == ("+1.35", "0.10")
        assert i18n.count(1234567) == "1,234,567"


def test_the_illegal_move_reply_renders_in_german_with_the_engines_reason() -> None:
    position = Position().play("e4")
    try:
        position.parse_move("e4")
    except IllegalMoveError as err:
        reason = err.reason
    assert reason is not None
    context = {
        "folded": False,
        "reason": "e4 ist auf Brett 101 jetzt kein erlaubter Zug.",
        "command": "emergo move 101 bob ******** e4",
        "capture_size": 0,
        "legal_count": 2,
        "legal_lines": ["d4 d5"],
        "board_text": "BOARD",
    }
    with i18n.speaking("de"):
        text = render("error/illegal_move.txt.j2", why=said(reason), **context)
    assert "Warum: Feld e4 ist besetzt: Steine werden nur auf freie Felder eingesetzt." in " ".join(
        text.split()
    )
    assert "Die erlaubten Züge (2):\n  d4 d5\n" in text
    assert "Dein Befehl:\n  emergo move 101 bob ******** e4\n" in text
    with i18n.speaking("en"):
        text = render("error/illegal_move.txt.j2", why=str(reason), **context)
    assert "Why: Cell e4 is occupied: men are entered on vacant cells only.\n" in text
    assert "The legal moves (2):\n" in text


def test_help_for_a_command_in_french_keeps_the_syntax_english() -> None:
    with i18n.speaking("fr"):
        text = render(
            "help_command.txt.j2",
            usage="emergo move board userid password MOVE[#n]",
            description=i18n._(
                "play MOVE (e4, e4-e5, e4xc4xc6), or resign, propose, accept, reject, undo"
            ),
            details=None,
        )
    assert text.startswith("emergo move board userid password MOVE[#n]\n\n")
    assert "'help' liste toutes les commandes\u00a0; 'help emergo' envoie les règles" in text
