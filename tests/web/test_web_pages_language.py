"""Every public page in the reader's language: a Dutch ``Accept-Language`` gets the Dutch
front page, board, player, event and standings pages, ``?lang=de`` the German ones; numbers
and moments are written as the page's locale writes them (Babel), and the board's table reads
its cells in German to a screen reader (Chromium's accessibility tree). English stays as it
was. On SQLite and PostgreSQL (the browser test on SQLite)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.cli import main
from pbm_emergo.db import analyses, games
from pbm_emergo.db.types import utcnow
from pbm_emergo.robot.analysis import analyse
from pbm_emergo.rules import CELLS, Column, Game
from pbm_emergo.web.app import create_app
from tests.support.mailer import Mailer
from tests.support.servers import running, web_server

from .support import CAPTURE_GAME

DUTCH = {"Accept-Language": "nl-NL,nl;q=0.9,en;q=0.5"}


@pytest.fixture
def played(game: Mailer, database_url: str) -> Mailer:
    """Board 101 played to its capture, board 102 finished and analysed, and the event
    "autumn" open with nobody in it."""
    game.play(101, CAPTURE_GAME)
    game.send("emergo challenge bob alice", sender="bob@example.org")
    game.play(102, ["e4", "d6", "c4"], first_mover="bob")
    game.move(102, "alice", "resign")
    assert main(["admin", "event", "create", "autumn", "--format", "round-robin",
                 "--max-players", "4", "--database-url", database_url]) == 0  # fmt: skip
    return game


@pytest.fixture
def client(played: Mailer, db_sessions: sessionmaker[Session]) -> Iterator[TestClient]:
    report = analyse(["e4", "d6", "c4"], seconds_per_move=5.0, node_limit=300, seed=102)
    now = utcnow()
    with db_sessions.begin() as session:
        board = games.get_board(session, 102)
        assert board is not None
        analyses.add_request(session, 102, board.white_player.id, "bob@example.org", now,
                             limit=3, since=now - timedelta(days=1))  # fmt: skip
        (waiting,) = analyses.queued(session, 102)
        analyses.finish(session, waiting.id, report.to_data(), now)
    with TestClient(create_app(db_sessions), raise_server_exceptions=False) as client:
        yield client


def test_a_dutch_browser_gets_the_dutch_board_page(client: TestClient) -> None:
    page = client.get("/boards/101", headers=DUTCH)
    assert page.status_code == 200 and page.headers["Content-Language"] == "nl"
    html = page.text
    assert '<html lang="nl">' in html
    assert "<title>Emergo-bord 101 - " in html and "<h1>Emergo-bord 101</h1>" in html
    assert "(Ohs, 1600) tegen <a" in html
    assert '<h2 id="legend">Het bord lezen</h2>' in html
    assert "<h2>Zetten</h2>" in html and "<th>Speler</th><th>Zet</th>" in html
    assert "zet 31 van 31" in html and "&lsaquo; vorige</a>" in html
    # The board's own table: its caption, headers, cells and lines in Dutch.
    assert "Het bord: rijen a (boven) tot i, kolommen 1 (links) tot 9; Eks aan zet" in html
    assert 'aria-label="kolom 5"' in html and 'aria-label="rij e"' in html
    e6 = "e6: Ohs-schijf, 2 Eks-gevangenen; hierheen ging de laatste zet"
    assert f'aria-label="{e6}"' in html
    assert "Laatste zet g4xg6xe6, door Ohs:" in html
    assert "Reading the board" not in html and "against" not in html
    # Move words and notation stay as they are.
    assert '<a href="?move=31">g4xg6xe6</a>' in html


def test_a_dutch_browser_gets_the_dutch_player_event_and_standings_pages(
    client: TestClient,
) -> None:
    player = client.get("/players/alice", headers=DUTCH).text
    assert "<h2>Borden</h2>" in player
    assert (
        "<p>Rating <b>1600</b>, ratingdeviatie 350 (voorlopig) na 0 ratingpartijen: "
        "0 gewonnen, 1 verloren, 0 remise.</p>"
    ) in player
    assert "<td>bob won (opgegeven)</td>" in player
    assert re.search(r"Speelt sinds \d+ \w+ \d{4} \d\d:\d\d UTC; 1 lopend bord\.", player)
    assert "<td>bob aan zet</td>" in player
    event = client.get("/events/autumn", headers=DUTCH).text
    assert "<h2>Ranglijst</h2>" in event and "De klok: " in event
    assert "Nog niemand doet mee: <code>emergo join autumn USERID PASSWORD</code>." in event
    assert "round-robin, open" in event  # the format is a command word
    events = client.get("/events", headers=DUTCH).text
    assert "<h1>Toernooien</h1>" in events and "<th>Toernooi</th>" in events
    standings = client.get("/standings", headers=DUTCH).text
    assert "<h2>Voorlopige spelers (ratingdeviatie boven 110)</h2>" in standings
    assert "<th>Speler</th>" in standings
    index = client.get("/", headers=DUTCH).text
    assert "<h2>Borden in het spel</h2>" in index and "<h2>Recente uitslagen</h2>" in index
    assert '<td>bob won <span class="muted">(opgegeven)</span></td>' in index
    missing = client.get("/boards/999", headers=DUTCH)
    assert missing.status_code == 404
    assert "<h1>404 Niet gevonden</h1>" in missing.text and "Er is geen bord 999." in missing.text


def test_the_switch_gives_german_pages(client: TestClient) -> None:
    board = client.get("/boards/101?lang=de").text
    assert '<html lang="de">' in board and "<h1>Emergo-Brett 101</h1>" in board
    assert "Das Brett: Reihen a (oben) bis i, Spalten 1 (links) bis 9; Eks am Zug" in board
    assert "Eks am Zug, 1 legaler Zug</p>" in board
    # The lines the board mail shares: whose turn, the terms, the deadlines.
    text = " ".join(re.sub(r"<[^>]+>", " ", board).split())
    assert re.search(r"bob ist am Zug \(Eks\): Zug \d+\.", text)
    assert "Zieht bob nicht: eine Erinnerung am " in text
    assert "It is bob's turn" not in text and "does not move" not in text
    # The cookie keeps German for the next page.
    player = client.get("/players/bob").text
    assert '<html lang="de">' in player and "<h2>Bretter</h2>" in player
    assert re.search(r"Spielt seit \d+\. \w+ \d{4} \d\d:\d\d UTC", player)


def test_numbers_are_written_as_the_locale_writes_them(client: TestClient) -> None:
    def values(html: str) -> list[str]:
        return re.findall(r'<td class="n">([+-]\d+[.,]\d\d)</td>', html)

    english = client.get("/boards/102?lang=en").text
    german = client.get("/boards/102?lang=de").text
    french = client.get("/boards/102?lang=fr").text
    assert values(english) and all("." in v for v in values(english))
    assert values(german) == [v.replace(".", ",") for v in values(english)]
    assert values(french) == values(german)
    assert "an inaccuracy (at least 0.40 of a man)" in english
    assert "eine Ungenauigkeit (mindestens 0,40 Steine)" in german
    assert "une imprécision (au moins 0,40 pion)" in french
    # The moments: English as it was, German and Dutch in their long dates.
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", client.get("/history?lang=en").text)
    assert re.search(r"\d+\. \w+ \d{4} \d\d:\d\d UTC", client.get("/history?lang=de").text)


def test_english_pages_stay_english_after_a_german_one(client: TestClient) -> None:
    """The board's cells are made once a language: a German page leaves English as it was."""
    client.get("/boards/101?lang=de")
    english = client.get("/boards/101?lang=en").text
    assert 'aria-label="e6: Ohs man, 2 Eks prisoners; the last move went here"' in english
    assert "The board: rows a (top) to i, columns 1 (left) to 9; Eks to move" in english
    assert "Ohs-Stein" not in english


# --- the board page read by a screen reader, in German ------------------------------------


def german_words(cell: str, column: Column | None) -> str:
    """A cell as the German board says it, written out here from the engine's column."""
    if column is None:
        return f"{cell}: leer"
    owner, enemy = ("Ohs", "Eks") if column.owner == "white" else ("Eks", "Ohs")
    if column.own == 1:
        text = f"{cell}: {owner}-Stein"
    else:
        text = f"{cell}: {owner}-Turm aus {column.own} Steinen"
    if column.prisoners == 1:
        text += f", 1 {enemy}-Gefangener"
    elif column.prisoners:
        text += f", {column.prisoners} {enemy}-Gefangene"
    return text


@pytest.mark.browser
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_german_board_page_reads_its_cells_in_german(
    browser: Any, played: Mailer, database_url: str, tmp_path: Path
) -> None:
    pytest.importorskip("playwright.sync_api")
    url, args = web_server(database_url, tmp_path / "web.log")
    with running(args, url + "/", tmp_path / "web.log"):
        page = browser.new_page(viewport={"width": 375, "height": 740}, locale="de-DE")
        page.set_extra_http_headers({"Accept-Language": "de-DE,de;q=0.9"})
        page.goto(f"{url}/boards/101")
        tree = page.locator("table.emergo-board").first.aria_snapshot()
        position = Game.from_moves(CAPTURE_GAME).position
        caption = "Das Brett: Reihen a (oben) bis i, Spalten 1 (links) bis 9; Eks am Zug"
        assert f'table "{caption}"' in tree
        for n in range(1, 10):
            assert f'columnheader "Spalte {n}"' in tree
        for row in "abcdefghi":
            assert f'rowheader "Reihe {row}"' in tree
        for cell in CELLS:
            assert f'cell "{german_words(cell, position.column(cell))}' in tree, cell
        assert 'cell "e6: Ohs-Stein, 2 Eks-Gefangene; hierhin ging der letzte Zug"' in tree
        assert "; im letzten Zug geschlagen" in tree
        count = len(position.legal_moves())
        moves = "1 legaler Zug" if count == 1 else f"{count} legale Züge"
        assert page.inner_text(".emergo-to-move") == f"Eks am Zug, {moves}"
        assert page.get_attribute("html", "lang") == "de"
        page.close()


def test_the_values_of_the_pages_in_each_locale() -> None:
    from datetime import UTC, datetime

    from pbm_emergo.views import i18n
    from pbm_emergo.web import words

    moment = datetime(2026, 12, 1, 14, 0, tzinfo=UTC)
    expected = {
        "en": ("1.35", "+1.35", "-0.40", "2026-12-01 14:00 UTC", "(95% interval"),
        "de": ("1,35", "+1,35", "-0,40", "1. Dezember 2026 14:00 UTC", "Klammern das 95\u00a0%"),
        "fr": ("1,35", "+1,35", "-0,40", "1 décembre 2026 14:00 UTC", "(intervalle à 95\u00a0%"),
        "nl": ("1,35", "+1,35", "-0,40", "1 december 2026 14:00 UTC", "(tussen haakjes het 95%"),
    }
    for locale, (plain, ahead, behind, when, ladder) in expected.items():
        with i18n.speaking(locale):
            assert words.number(1.35, 2) == plain, locale
            assert (words.signed(1.35), words.signed(-0.4)) == (ahead, behind), locale
            assert words.when(moment) == when, locale
            assert ladder in words.ladder_explanation(), locale
            assert words.number(1600) == "1600", locale  # a rating has no group separator


@pytest.mark.parametrize("lang", ["nl", "de", "fr"])
def test_every_page_renders_in_each_language(client: TestClient, lang: str) -> None:
    pages = [
        "/", "/boards/101", "/boards/101?move=0", "/boards/102", "/players/alice",
        "/players/bob", "/standings", "/history", "/events", "/events/autumn", "/rules",
    ]  # fmt: skip
    for path in pages:
        page = client.get(path, headers={"Accept-Language": lang})
        assert page.status_code == 200, (lang, path)
        assert f'<html lang="{lang}">' in page.text, (lang, path)
        assert page.headers["Content-Language"] == lang
    wrong = client.get("/boards/101?move=99", headers={"Accept-Language": lang})
    assert wrong.status_code == 400 and "?move=" in wrong.text and "31" in wrong.text
    assert "must be between" not in wrong.text
