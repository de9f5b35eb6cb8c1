"""A board mail in the reader's language: its text part (title, options, status, clocks,
deadlines, votes, the diagram's hands and key, the position in words) and its HTML part
(the section and the picture's captions and labels), in German and Dutch; in English, the
words the game core writes, unchanged. Command words, userids, cell names and moves stay
as they are in every language."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta

import pytest

from pbm_emergo.game.board import BoardState, OpenVote, PlayedMove, Seat
from pbm_emergo.game.clock import deadlines
from pbm_emergo.game.ratings import GameRating
from pbm_emergo.game.sentences import ENGLISH, Said, result_sentence, undo_said
from pbm_emergo.rules import Game, Position, Termination, position_words, render_board
from pbm_emergo.views import board_text
from pbm_emergo.views.board_mail import board_html, board_view
from pbm_emergo.views.i18n import speaking
from pbm_emergo.views.templating import render
from tests.game.boards import NOW, snapshot

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
MOVES = ["e4", "e6", "e2"]


def state_of(
    moves: list[str] = MOVES, *, total_days: int | None = None, **changes: object
) -> BoardState:
    white = Seat(1, "alice", 1600, "alice@example.org")
    black = Seat(2, "bob", 1584, "bob@example.org")
    values: dict[str, object] = dict(
        number=101, white=white, black=black, rated=True, blocked_rule="loss",
        nag_days=3, forfeit_days=14, created_at=START, status="active", ply=len(moves),
        to_move="black" if len(moves) % 2 else "white", winner=None, outcome_reason=None,
        position=Game.from_moves(moves).position,
        moves=tuple(
            PlayedMove(n, 1 if n % 2 else 2, m, START + timedelta(hours=n))
            for n, m in enumerate(moves, start=1)
        ),
        votes=(), rating=None, total_days=total_days,
    )  # fmt: skip
    values.update(changes)
    return BoardState(**values)  # type: ignore[arg-type]


def view_in(language: str, state: BoardState, **kwargs: object) -> tuple[str, str]:
    with speaking(language):
        view = board_view(state, now=START + timedelta(hours=4), **kwargs)  # type: ignore[arg-type]
        return view.text, board_html(view.subject, [view.html])


def test_a_german_board_mail() -> None:
    state = state_of(total_days=10, votes=(OpenVote("draw", 2, 3),))
    text, html = view_in("de", state)
    assert text.startswith(
        "Emergo-Brett 101: alice (Ohs, 1600) gegen bob (Eks, 1584)\n"
        "Optionen: gewertet; ein blockierter Spieler verliert; Erinnerung nach 3\n"
    )
    assert "bob ist am Zug (Eks): Zug 4.\n" in text
    assert (
        "bob bietet Remis an; alice kann mit\n'emergo move 101 alice PASSWORD accept' "
        "antworten (oder reject).\n"
    ) in text
    assert "Zieht bob nicht: eine Erinnerung am " in text
    assert "durch Zeitüberschreitung verloren." in text.replace("\n", " ")
    assert "Letzter Zug: 1. Dezember 2026 12:00 UTC (Zug 3, e2).\n" in text
    assert (
        "Bedenkzeit (10 Tage für jeden): alice 2 Std. verbraucht, 9 T 22 Std. übrig; bob "
    ) in text.replace("\n", " ")
    assert "  Ohs (alice) in der Hand: 10\n  Eks (bob) in der Hand: 11\n" in text
    assert "  Legende: . leeres Feld, o ein Ohs-Stein, x ein Eks-Stein; x5: ein Turm\n" in text
    assert " E - " in text and "Züge:\n" in text  # the diamond and the moves as they are
    assert all(len(line) <= 72 for line in text.splitlines())

    assert '<html lang="de">' in html
    assert "<h2 " in html and ">Emergo-Brett 101</h2>" in html
    assert "<b>alice</b> (Ohs, 1600) gegen <b>bob</b> (Eks, 1584)" in html
    assert "Das Brett: Reihen a (oben) bis i, Spalten 1 (links) bis 9; Eks am Zug" in html
    assert 'aria-label="Spalte 5"' in html and 'aria-label="Reihe e"' in html
    assert 'aria-label="e4: Ohs-Stein"' in html
    assert 'aria-label="e2: Ohs-Stein; hierhin ging der letzte Zug"' in html
    assert "Ohs (alice) in der Hand: <b>10</b>" in html
    assert "Letzter Zug e2, von Ohs:" in html and ">angekommen</span>" in html
    assert re.search(r"Eks am Zug, \d+ legale Züge</p>", html)
    assert "bob ist am Zug (Eks): Zug 4." in html


def test_a_dutch_board_mail_in_words_and_with_a_time_bank() -> None:
    state = state_of(timebank_hours=240, increment_hours=36, weekends_off=True)
    text, html = view_in("nl", state, style="list", new_board=True)
    assert text.startswith("Emergo-bord 101: alice (Ohs, 1600) tegen bob (Eks, 1584)\n")
    assert "een tijdbank van 240 uur per speler, 36 uur erbij per zet" in text.replace("\n", " ")
    assert "de klokken staan stil in het weekend" in text.replace("\n", " ")
    assert "Wil je deze partij niet spelen, stuur dan\n'emergo resign 101 YOURID PASSWORD'" in text
    assert "bob is aan zet (Eks): zet 4.\n" in text
    assert "Tijdbank (240 uur per speler, 36 uur erbij per zet): alice nog" in text
    assert "Rij a: leeg\n" in text and "Rij e:\n  e2: Ohs-schijf\n  e4: Ohs-schijf\n" in text
    assert "In de hand: Ohs 10, Eks 11\nLaatste zet: e2, door Ohs\n" in text
    assert re.search(r"Eks aan zet, \d+ geldige zetten\n", text)
    assert " E - " not in text
    assert all(len(line) <= 72 for line in text.splitlines())
    assert '<html lang="nl">' in html and "Dit bord" not in html  # no link given
    assert "<b>alice</b> (Ohs, 1600) tegen <b>bob</b> (Eks, 1584)" in html


def test_the_end_of_a_game_and_its_rating_changes_in_german() -> None:
    rating = GameRating(1600, 1584, 16, -16)
    state = state_of(
        status="finished",
        to_move=None,
        winner="white",
        outcome_reason=Termination.RESIGNED,
        rating=rating,
    )
    text, _ = view_in("de", state)
    assert "alice (Ohs) gewinnt: bob hat aufgegeben.\n" in text
    assert "Wertungsänderungen: alice 1600 -> 1616 (+16), bob 1584 -> 1568 (-16).\n" in text


@pytest.mark.parametrize(
    ("winner", "reason"),
    [
        ("white", Termination.ELIMINATED), ("black", Termination.BLOCKED),
        ("white", Termination.NO_LEGAL_ENTRY), ("black", Termination.RESIGNED),
        ("white", Termination.FORFEIT), ("black", Termination.ADJUDICATED),
        ("white", "another reason"), (None, Termination.VOIDED),
        (None, Termination.REPETITION), (None, Termination.DRAW_AGREED),
        (None, Termination.BLOCKED), (None, Termination.NO_LEGAL_ENTRY),
        (None, Termination.ADJUDICATED), (None, "another reason"),
    ],
)  # fmt: skip
def test_in_english_the_sentences_are_the_game_cores(winner: str | None, reason: str) -> None:
    state = state_of(status="finished", to_move=None, winner=winner, outcome_reason=reason)
    with speaking("en"):
        assert board_text.result_text(state) == result_sentence(state)
        assert board_text.status_text(state) == result_sentence(state)
    with speaking("de"):
        assert board_text.result_text(state) != result_sentence(state)


def test_in_english_the_diagram_and_the_words_are_the_rules() -> None:
    for moves in ([], MOVES, ["e4", "e6", "e2", "e5", "e3"]):
        position = Game.from_moves(moves).position if moves else Position()
        last = moves[-1] if moves else None
        with speaking(None):
            assert board_text.position_text(position, last) == position_words(position, last)
            for turned in (False, True):
                assert board_text.diagram_text(
                    position, "alice", "bob", turned=turned
                ) == render_board(position, "alice", "bob", turned=turned)
        assert board_text.diagram_text(position, None, None) == render_board(position)
    state = state_of(moves=["e4"], status="active")
    assert board_text.status_text(state) == "It is bob's turn (Eks): move 2."


def test_the_answers_about_boards_in_german_and_dutch() -> None:
    with speaking("de"):
        moves = render(
            "moves.txt.j2", number=101, move_number=4, userid="bob", side="Eks", count=2,
            lines=["e3  e5"], capture_size=0, in_hand=11,
        )  # fmt: skip
        games = render(
            "games.txt.j2", which="next", userids=["alice"], white="Ohs", black="Eks",
            rows=[{"number": 101, "move": 4, "white": "alice", "black": "bob",
                   "status": board_text.to_move_text("bob")}],
            truncated=False, limit=200,
        )  # fmt: skip
    assert moves.startswith("Brett 101, Zug 4: bob (Eks) am Zug.\n\n")
    assert "bob hat 11 Steine in der Hand und muss einsetzen.\n2 legale Züge:\n  e3  e5\n" in moves
    assert games.startswith("Die Bretter, auf denen alice am Zug ist:\n\n")
    assert "Brett  Zug   Ohs               Eks               Stand\n" in games
    assert "101    4     alice             bob               bob am Zug\n" in games
    with speaking("nl"):
        standings = render(
            "standings.txt.j2", sections=[], userids=[], start=1500, start_deviation=350,
            provisional_deviation=110, inactive_days=90, ladder={}, ladder_explanation="",
        )  # fmt: skip
        finished = board_text.won_text("alice", Termination.RESIGNED)
    assert standings.startswith("Emergo-ranglijst\n\nGlicko-2-ratings: iedereen begint op 1500")
    assert "Nog geen spelers.\n" in standings
    assert finished == "alice won (opgegeven)"
    with speaking("en"):  # the stored word, as before
        assert board_text.won_text("alice", Termination.RESIGNED) == "alice won (resigned)"


def test_the_headlines_the_game_says_as_values() -> None:
    values: dict[str, str | int] = {
        "userid": "alice", "other": "bob", "move": "e4xc4", "number": 7, "first": 5, "last": 7,
        "event": "autumn",
    }  # fmt: skip
    for kind, english in ENGLISH.items():
        said = Said(kind, tuple(values.items()))
        with speaking("en"):
            assert board_text.headline_text(said) == english % values == said
        with speaking("de"):
            assert board_text.headline_text(said) != said
    chain = Said.joined(
        [Said.of("played", userid="alice", move="e4", number=1),
         undo_said("asks_undo", 1, 1, userid="alice")], "\n"
    )  # fmt: skip
    assert chain == "alice played e4 (move 1).\nalice asks to take back move 1."
    with speaking("nl"):
        assert board_text.headline_text(chain) == (
            "alice speelde e4 (zet 1).\nalice vraagt zet 1 terug te nemen."
        )
    assert board_text.headline_text("as it is") == "as it is"


def test_the_deadline_sentence_gives_the_times_in_the_zone_of_the_player_to_move() -> None:
    state = snapshot(["e4"]).state
    bob = dataclasses.replace(state.black, timezone="Europe/Amsterdam")
    due = deadlines(state.replace(black=bob), NOW)
    assert due is not None
    last = state.moves[-1].played_at  # 2026-03-01 11:00 UTC: 12:00 in Amsterdam (CET)
    assert last == datetime(2026, 3, 1, 11, 0, tzinfo=UTC)
    with speaking("en"):
        assert board_text.deadline_text(due) == (
            "If bob does not move: a reminder at 2026-03-08 12:00 CET (Europe/Amsterdam), and "
            "the game is lost on time from 2026-03-29 13:00 CEST (Europe/Amsterdam)."
        )
    with speaking("de"):
        assert "Europe/Amsterdam" in board_text.deadline_text(due)
        assert "If bob" not in board_text.deadline_text(due)


def test_the_rating_changes_of_a_game() -> None:
    rating = GameRating(1600, 1650, 25, -25)
    with speaking("en"):
        assert board_text.rating_lines(rating, "alice", "bob") == [
            "alice 1600 -> 1625 (+25)",
            "bob 1650 -> 1625 (-25)",
        ]


def test_a_finished_games_result_as_a_value_said_in_dutch_and_german() -> None:
    from pbm_emergo.game.reasons import refusal
    from pbm_emergo.game.sentences import result_reason
    from pbm_emergo.views.reasons import said

    state = state_of(
        status="finished", to_move=None, winner="black", outcome_reason=Termination.FORFEIT
    )
    over = refusal("game_is_over", number=101, result=result_reason(state))
    assert str(over) == "The game on board 101 is over: bob (Eks) wins: alice did not move in time."
    with speaking("de"):
        assert said(over).startswith("Die Partie auf Brett 101 ist vorbei: bob (Eks) gewinnt: ")
    with speaking("nl"):
        assert board_text.result_text(state).startswith("bob (Eks) wint")


def test_the_clock_terms_in_words() -> None:
    with speaking("en"):
        assert board_text.clock_terms_text(None, None, False) is None
        assert board_text.clock_terms_text(240, 36, True) == (
            "a time bank of 240 hours each, 36 hours added a move (up to the bank's size); the "
            "clocks stop at weekends (Saturday and Sunday in each player's time zone)"
        )


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("de", "Verbrauchte Zeit: alice 2 Std., bob 1 Std.\n"),
        ("en", "Time taken: alice 2 h, bob 1 h.\n"),
    ],
)
def test_a_time_that_ends_in_its_units_period_ends_the_sentence(language: str, line: str) -> None:
    # German's "Std." is not followed by the sentence's own period ("Std..").
    text, html = view_in(language, state_of())
    assert line in text
    assert line.strip() in html and ".." not in text
