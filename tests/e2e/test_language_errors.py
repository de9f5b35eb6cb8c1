"""Errors, help and the analysis in the player's language, by mail: a player who chose
``language USERID PASSWORD de`` gets the rules engine's reason for an illegal move, the
game's refusals, the commands' usage errors, ``help COMMAND``, ``help emergo`` and the
engine's analysis in German, cells, moves and command words as written. Through the real
listener, SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

from tests.e2e.test_analysis import MOVES, analysis_mails, html, play
from tests.support.mail import wait_for
from tests.support.post import ALICE, BOB, Post, challenge, text
from tests.support.text import flat


def test_a_german_player_gets_the_reason_of_an_illegal_move_in_german(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    board = challenge(post)

    early = post.one(f"emergo move {board} bob bob-pw1 e4", BOB)
    assert str(early["Subject"]) == f"Emergo Board {board} Error"  # Subjects stay English
    assert f"Du bist auf Brett {board} nicht am Zug: alice ist am Zug." in flat(text(early))

    post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    illegal = text(post.one(f"emergo move {board} bob bob-pw1 e4", BOB))
    assert illegal.startswith(f"e4 ist auf Brett {board} jetzt kein erlaubter Zug.\n")
    assert "Warum: Feld e4 ist besetzt: Steine werden nur auf freie Felder eingesetzt." in flat(
        illegal
    )
    assert "Die erlaubten Züge (" in illegal
    assert "Schicke 'help' für die Liste der Befehle." in illegal
    assert all(len(line) <= 72 for line in illegal.splitlines())

    malformed = text(post.one(f"emergo move {board} bob bob-pw1 a1", BOB))
    assert malformed.startswith("a1 ist kein Feld des Emergo-Bretts.\n")
    assert "Zo schrijf" not in malformed and "Zugs" not in malformed

    queued = text(post.one(f"emergo queue {board} bob bob-pw1 e6", BOB))
    assert queued.startswith(f"Du bist auf Brett {board} am Zug: ")
    assert f"'emergo move {board} bob PASSWORD MOVE'" in flat(queued)

    usage = text(post.one("board bob bob-pw1 sideways", BOB))
    assert usage.startswith("Schreib nach dem Passwort list oder diagram: ")
    assert "  board userid password list|diagram" in usage  # the syntax stays English

    # alice chose nothing: the same refusals in English, as before.
    english = text(post.one(f"emergo move {board} alice alice-pw1 e6", ALICE))
    assert english.startswith(f"It is not your turn on board {board}: it is bob's.\n")
    post.send(f"emergo move {board} bob bob-pw1 e6", BOB)
    # A conditional queue whose opponent's move is not legal: the queue's sentence and the
    # engine's reason inside it, both German.
    queued = text(post.one(f"emergo queue {board} bob bob-pw1 e4=d5", BOB))
    assert queued.startswith("Der Zug des Gegners e4 wäre nicht erlaubt: ")
    assert "Feld e4 ist besetzt" in flat(queued)
    english = text(post.one(f"emergo move {board} alice alice-pw1 e6", ALICE))
    assert english.startswith(f"e6 is not a legal move on board {board} now.\n")
    assert "Why: Cell e6 is occupied: men are entered on vacant cells only." in flat(english)


def test_a_german_player_gets_help_in_german(make_post: Callable[..., Post]) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)

    summary = text(post.one("help", BOB))
    assert summary.startswith("Hilfe zum Emergo-Mailserver ")

    move = text(post.one("help move", BOB))
    assert move.startswith("emergo move board userid password MOVE[#n]\n")
    assert "MOVE spielen (e4, e4-e5, e4xc4xc6), oder resign, propose, accept" in flat(move)
    assert "'help' listet alle Befehle auf; 'help emergo' schickt die Regeln" in flat(move)
    assert all(len(line) <= 72 for line in move.splitlines())

    page = text(post.one("help emergo", BOB))
    assert page.startswith("Hilfe zu Emergo\n")
    assert "\nSo schreibst du einen Zug\n" in page
    assert "  e4-e5          den Stein auf e4 nach e5 ziehen\n" in page
    assert "\nBefehle\n" in page
    assert all(len(line) <= 72 for line in page.splitlines())

    # alice chose nothing: English, as before.
    english = text(post.one("help move", ALICE))
    assert english.startswith("emergo move board userid password MOVE[#n]\n")
    assert "'help' lists every command; 'help emergo' sends the rules" in flat(english)


def test_a_german_player_gets_the_analysis_in_german(make_post: Callable[..., Post]) -> None:
    post = make_post(analysis_seconds_per_move=0.1, analyses_per_day=1)
    post.one("language bob bob-pw1 de", BOB)
    board = challenge(post)
    play(post, board, MOVES)

    active = text(post.one(f"emergo analyse {board} bob bob-pw1", BOB))
    assert f"Auf Brett {board} wird noch gespielt" in flat(active)

    post.send(f"emergo resign {board} alice alice-pw1", ALICE)
    queued = post.one(f"emergo analyse {board} bob bob-pw1", BOB)
    assert str(queued["Subject"]) == f"Emergo analysis {board} queued"
    assert text(queued).startswith(f"Deine Analyse von Brett {board} ist in der Warteschlange.\n")
    assert "Es ist Analyse 1 von 1, die du in 24 Stunden anfordern darfst." in flat(text(queued))

    [mail] = wait_for(lambda: analysis_mails(post, BOB, board), timeout=60)
    notes = text(mail)
    assert notes.startswith(
        f"Die Anmerkungen der Engine zu Brett {board}: alice (Ohs) gegen bob (Eks)."
    )
    for section in ("\nZusammenfassung\n", "\nDer Wendepunkt\n", "\nAlle Züge (Bewertung"):
        assert section in notes
    assert "\n  bob (Eks): 9 Züge, durchschnittlicher Verlust " in notes
    assert "bob (Eks) gewinnt: alice hat aufgegeben." in flat(notes)  # the result
    assert "Besser war" in flat(notes)
    assert all(len(line) <= 72 for line in notes.splitlines())
    page = html(mail)
    assert '<html lang="de">' in page and "Die Anmerkungen der Engine zu Brett" in page

    # alice, who chose nothing, gets the stored analysis in English.
    english = text(post.one(f"emergo analyse {board} alice alice-pw1", ALICE))
    assert english.startswith(f"The engine's notes on board {board}: alice (Ohs) against bob")
    assert "bob (Eks) wins: alice resigned." in flat(english)
