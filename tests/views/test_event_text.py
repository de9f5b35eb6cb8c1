"""The sentences of an event's mails in the reader's language: the clock sentence shares its
time bank and weekend words with the board mails, the table and the list render in German
and Dutch, and English stays as it always was."""

from __future__ import annotations

from pbm_emergo.views import event_text
from pbm_emergo.views.board_text import clock_terms_text
from pbm_emergo.views.i18n import speaking
from pbm_emergo.views.templating import render


def clock() -> str:
    return event_text.clock_text(3, 14, 30, 240, 36, True)


def test_the_clock_sentence_in_english_is_as_it_was() -> None:
    assert clock() == (
        "a reminder after 3 days without a move, the game lost after 14, or after 30 days of "
        "thinking time in all, or when the time bank runs out; a time bank of 240 hours "
        "each, 36 hours added a move (up to the bank's size); the clocks stop at weekends "
        "(Saturday and Sunday in each player's time zone); vacation days stop the clock "
        "('vacation')."
    )


def test_the_clock_sentence_in_german_shares_the_board_mails_words() -> None:
    with speaking("de"):
        text = clock()
        terms = clock_terms_text(240, 36, True)
    assert text.startswith("eine Erinnerung nach 3 Tagen ohne Zug, die Partie verloren nach 14")
    assert " oder nach insgesamt 30 Tagen Bedenkzeit oder wenn das Zeitkonto leer ist; " in text
    assert terms is not None and f"; {terms};" in text
    assert text.endswith("; Urlaubstage halten die Uhr an ('vacation').")


def test_the_status_and_the_next_games_in_dutch() -> None:
    with speaking("nl"):
        assert event_text.status_text("running") == "bezig"
        assert event_text.next_game_text(7, "bob", True) == "bord 7 tegen bob (Ohs, begint)"
    assert event_text.status_text("running") == "running"


TABLE = {
    "event_name": "autumn", "season": 2, "event_format": "league", "status": "open",
    "round": 0, "total_rounds": 3, "starts": "2026-12-01 10:00 UTC", "winner": None,
    "rated": False, "clock": "C", "tiebreak": "Buchholz", "withdrawn": ["carol"],
    "divisions": [[], []], "crosstable": [], "next_games": [],
}  # fmt: skip


def test_the_event_table_in_german() -> None:
    with speaking("de"):
        text = render("event.txt.j2", status_text="offen", **TABLE)
    assert text.startswith("Das Turnier autumn (Saison 2): league, offen.\n")
    assert "Es beginnt am 2026-12-01 10:00 UTC oder sobald es voll ist.\n" in text
    assert "Die Partien werden nicht gewertet; die Uhr: C\n" in text
    assert "Liga 2\n" in text
    assert "Noch hat sich niemand angemeldet.\n" in text
    assert "Zurückgezogen: carol.\n" in text
    assert "Buchholz (BH): die Punkte aller\nGegner, gegen die gespielt wurde.\n" in text
    english = render("event.txt.j2", status_text="open", **TABLE)
    assert english.startswith("The event autumn (season 2): league, open.\n")
    assert "Games are unrated; the clock: C\n" in english
    assert "Division 2\n" in english
    assert english.endswith(
        "Points first, then the tie-break: Buchholz (BH): the points of every\nopponent met.\n"
    )


def test_no_event_in_dutch() -> None:
    with speaking("nl"):
        assert render("events.txt.j2", rows=[]) == (
            "Er is op dit moment geen toernooi open of bezig.\n"
        )


def test_the_crosstable_rows_follow_each_other() -> None:
    cells = [{"text": "x"}, {"text": "1"}], [{"text": "0"}, {"text": "x"}]
    crosstable = [
        {"place": 1, "userid": "alice", "cells": cells[0], "points": 1},
        {"place": 2, "userid": "bob", "cells": cells[1], "points": 0},
    ]
    text = render("event.txt.j2", status_text="open", **{**TABLE, "crosstable": crosstable})
    assert (
        "come):\n"
        "  1 alice              x   1      1\n"
        "  2 bob                0   x      0\n"
        "\nWithdrawn: carol.\n"
    ) in text
