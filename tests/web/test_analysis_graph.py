"""The analysis on the web: the board page of an analysed game shows the engine's evaluation
graph (inline SVG made on the server, one linked point a move) and its notes beside the
moves; a board nobody had analysed looks as before. In Chromium at a phone's and a desktop's
width: the graph is visible, a click on a point steps to that move, and nothing scrolls
sideways. The graph itself is a pure function, tested here too."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.db import analyses, games
from pbm_emergo.db.reads import MoveNote, board_analysis
from pbm_emergo.db.types import utcnow
from pbm_emergo.robot.analysis import analyse
from pbm_emergo.web.app import create_app
from pbm_emergo.web.graph import MAX_SCALE, evaluation_graph, graph_scale, value_text
from tests.support.mailer import Mailer
from tests.support.servers import running, web_server

from .support import CAPTURE_GAME, shoot

SVG = "{http://www.w3.org/2000/svg}"
COMMENT = "Two men at once, you will see."


def note(number: int, ohs_score: int, label: str = "", forced: bool = False) -> MoveNote:
    mark = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}.get(label, "")
    return MoveNote(
        number=number, side=(number - 1) % 2, played=f"m{number}", ohs_score=ohs_score,
        forced=forced, label=label, mark=mark, loss=300 if label else 0,
        best="e5" if label else None, line=("e5", "d6") if label else (),
    )  # fmt: skip


def svg_tree(markup: str) -> ET.Element:
    """The graph as XML (it must be well-formed to be SVG at all)."""
    return ET.fromstring(str(markup).replace("<svg ", f'<svg xmlns="{SVG[1:-1]}" ', 1))


# --- the pure graph ------------------------------------------------------------------------


def test_the_graph_has_one_linked_point_a_move() -> None:
    notes = [note(1, 20), note(2, -150, "mistake"), note(3, 40), note(4, -320, "blunder")]
    svg = svg_tree(evaluation_graph(notes, ("alice", "bob"), shown=2))
    links = svg.findall(f"{SVG}a")
    assert [a.get("href") for a in links] == ["?move=1", "?move=2", "?move=3", "?move=4"]
    points = [a.find(f"{SVG}circle") for a in links]
    assert all(p is not None for p in points)
    classes = [p.get("class") for p in points if p is not None]
    assert classes == ["point", "point mistake current", "point", "point blunder"]
    # Who played it, what and its value, in the point's tooltip.
    titles = [a.findtext(f"{SVG}title") for a in links]
    assert titles[1] == "Move 2, bob: m2? (-1.50, mistake)"
    assert titles[0] == "Move 1, alice: m1 (+0.20)"
    # Up is Ohs ahead: the points rise and fall with the values.
    ys = [float(p.get("cy", "0")) for p in points if p is not None]
    assert ys[2] < ys[0] < ys[1] < ys[3]
    assert [float(p.get("cx", "0")) for p in points if p is not None] == sorted(
        float(p.get("cx", "0")) for p in points if p is not None
    )
    # A zero line, and the scale on the y axis (4 men: the largest value, rounded up).
    assert svg.find(f"{SVG}line[@class='zero']") is not None
    labels = [t.text for t in svg.findall(f"{SVG}text")]
    assert "+4" in labels and "0" in labels and "-4" in labels


def test_the_graph_clamps_and_a_win_by_force_is_drawn_at_the_edge() -> None:
    notes = [note(1, 50), note(2, -90), note(3, 1000, forced=True)]
    assert graph_scale(notes) == 1  # the forced win does not flatten the rest
    svg = svg_tree(evaluation_graph(notes, ("alice", "bob"), shown=0))
    ys = [float(c.get("cy", "0")) for c in svg.iter(f"{SVG}circle")]
    grid = sorted(float(line.get("y1", "0")) for line in svg.findall(f"{SVG}line[@class='grid']"))
    assert ys[2] == grid[0]  # the top edge: +1 man
    assert svg.find(f"{SVG}line[@class='shown']") is None  # move 0 shown: nothing marked
    assert graph_scale([note(1, 999_999 // 100)]) == MAX_SCALE
    assert value_text(notes[2]) == "Ohs wins by force"
    assert value_text(note(4, -1000, forced=True)) == "Eks wins by force"
    assert value_text(notes[1]) == "-0.90"


def test_the_graph_escapes_what_it_shows() -> None:
    markup = evaluation_graph([note(1, 0)], ("<b>al</b>", "bob"), shown=1)
    assert "<b>" not in markup and "&lt;b&gt;al&lt;/b&gt;" in markup
    assert "<script" not in markup


def test_a_long_game_numbers_at_most_ten_moves_on_its_axis() -> None:
    notes = [note(n, (n % 7) * 30 - 90) for n in range(1, 96)]
    svg = svg_tree(evaluation_graph(notes, ("alice", "bob"), shown=95))
    numbers = [t.text for t in svg.findall(f"{SVG}text") if t.get("text-anchor") == "middle"]
    assert numbers == [str(n) for n in range(10, 96, 10)]
    assert len(svg.findall(f"{SVG}a")) == 95


# --- the board page ------------------------------------------------------------------------


@pytest.fixture
def finished(game: Mailer) -> Mailer:
    """Board 101 played out (the last move with the players' comment) and bob resigned;
    board 102 finished too, never analysed."""
    game.play(101, CAPTURE_GAME[:-1])
    game.move(101, "alice", CAPTURE_GAME[-1], comment=COMMENT)
    game.move(101, "bob", "resign")
    game.send("emergo challenge bob alice", sender="bob@example.org")
    game.play(102, ["e4", "d6", "c4"], first_mover="bob")
    game.move(102, "alice", "resign")
    return game


@pytest.fixture
def analysed(finished: Mailer, db_sessions: sessionmaker[Session]) -> Mailer:
    """Board 101's analysis stored as the robots' runner stores it (a small node limit)."""
    report = analyse(CAPTURE_GAME, seconds_per_move=5.0, node_limit=1500, seed=101)
    now = utcnow()
    with db_sessions.begin() as session:
        board = games.get_board(session, 101)
        assert board is not None
        analyses.add_request(session, 101, board.white_player.id, "alice@example.org", now,
                             limit=3, since=now - timedelta(days=1))  # fmt: skip
        (waiting,) = analyses.queued(session, 101)
        analyses.finish(session, waiting.id, report.to_data(), now)
    return finished


@pytest.fixture
def client(analysed: Mailer, db_sessions: sessionmaker[Session]) -> Iterator[TestClient]:
    with TestClient(create_app(db_sessions), raise_server_exceptions=False) as client:
        yield client


def test_the_read_model_gives_the_values_from_ohss_side(
    analysed: Mailer, db_sessions: sessionmaker[Session]
) -> None:
    with db_sessions() as session:
        stored = analyses.stored_report(session, 101)
        read = board_analysis(session, 101)
        assert board_analysis(session, 102) is None
    assert stored is not None and read is not None
    assert [n.number for n in read.notes] == list(range(1, len(CAPTURE_GAME) + 1))
    for n, (_, side, played, score, best, _, loss, label, line) in zip(
        read.notes, stored["verdicts"], strict=True
    ):
        assert (n.side, n.played, n.label, n.loss) == (side, played, label, loss)
        assert n.ohs_score == (score if side == 0 else -score) or n.forced
        assert (n.best, n.line) == ((best, tuple(line)) if label else (None, ()))


def test_an_analysed_board_shows_the_graph_and_the_notes(client: TestClient) -> None:
    page = client.get("/boards/101?move=28")
    assert page.status_code == 200
    assert "<script" not in page.text
    match = re.search(r"<svg class=\"graph\".*?</svg>", page.text, re.S)
    assert match is not None
    svg = svg_tree(match.group(0))
    moves = len(CAPTURE_GAME)
    assert [a.get("href") for a in svg.findall(f"{SVG}a")] == [
        f"?move={n}" for n in range(1, moves + 1)
    ]
    assert len(list(svg.iter(f"{SVG}circle"))) == moves
    current = [c for c in svg.iter(f"{SVG}circle") if "current" in (c.get("class") or "")]
    assert len(current) == 1
    # The marks beside the moves, and the better move beside each marked one.
    rows = re.findall(r"<tr[^>]*><td class=\"n\">(\d+)</td>(.*?)</tr>", page.text, re.S)
    assert len(rows) == moves
    marked = {int(n): row for n, row in rows if 'class="verdict' in row}
    assert marked, "the analysis marks some moves"
    for number, row in marked.items():
        label = re.search(r'class="verdict (\w+)" title="\w+">([?!]+)<', row)
        assert label is not None
        assert label.group(2) == {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}[
            label.group(1)
        ]
        assert "Better <b>" in row, number
    unmarked = [row for n, row in rows if int(n) not in marked]
    assert unmarked and all("Better" not in row for row in unmarked)
    # The engine's notes are public; the players' comment stays theirs.
    assert "The engine's analysis" in page.text
    assert COMMENT not in page.text


def test_a_board_nobody_had_analysed_shows_no_graph(client: TestClient) -> None:
    page = client.get("/boards/102")
    assert page.status_code == 200
    main = page.text.split("<main>", 1)[1]  # the style sheet above names the graph's classes
    assert "<svg" not in main and 'class="verdict' not in main and "Better" not in main
    assert "<th>Engine</th>" not in main and "engine's analysis" not in main
    assert "e4" in main  # its moves, as before


# --- in a browser -------------------------------------------------------------------------

PHONE = {"width": 375, "height": 740}
WIDE = {"width": 1280, "height": 900}


@pytest.mark.browser
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_graph_in_a_browser(
    browser: Any, analysed: Mailer, database_url: str, tmp_path: Path
) -> None:
    url, args = web_server(database_url, tmp_path / "web.log")
    with running(args, url + "/", tmp_path / "web.log"):
        for viewport, name in ((PHONE, "analysis-375.png"), (WIDE, "analysis-1280.png")):
            page = browser.new_page(viewport=viewport)
            requests: list[str] = []
            page.on("request", lambda request, seen=requests: seen.append(request.url))
            page.goto(f"{url}/boards/101?move=28")
            assert requests == [f"{url}/boards/101?move=28"]  # nothing else fetched
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"], f"{width} px wide"
            graph = page.locator("svg.graph").bounding_box()
            assert graph is not None
            assert graph["width"] >= min(340, viewport["width"] - 40) and graph["height"] > 100
            # Every point is drawn inside the graph, and the marked ones in their colours.
            points = page.evaluate(
                "() => [...document.querySelectorAll('svg.graph circle')].map(c => {"
                " const b = c.getBoundingClientRect();"
                " return {x: b.left + b.width / 2, y: b.top + b.height / 2, w: b.width,"
                " fill: getComputedStyle(c).fill, cls: c.getAttribute('class')}; })"
            )
            assert len(points) == len(CAPTURE_GAME)
            for point in points:
                assert graph["x"] <= point["x"] <= graph["x"] + graph["width"]
                assert graph["y"] <= point["y"] <= graph["y"] + graph["height"]
                assert point["w"] > 3
            fills = {p["fill"] for p in points if "blunder" in p["cls"]}
            assert fills and fills.isdisjoint({p["fill"] for p in points if p["cls"] == "point"})
            if viewport is PHONE:  # the phone's picture: the graph and the first notes
                page.locator("#analysis").scroll_into_view_if_needed()
                page.evaluate("document.getElementById('analysis').scrollIntoView()")
            shoot(page, tmp_path, name, full_page=viewport is WIDE)
            page.close()
        # A click on a point shows the board after that move.
        page = browser.new_page(viewport=PHONE)
        page.goto(f"{url}/boards/101")
        page.locator('svg.graph a[href="?move=12"]').click()
        page.wait_for_url(re.compile(r"/boards/101\?move=12$"))
        assert page.inner_text("tr.current").split()[:2] == ["12", "bob"]
        page.close()
        # Dark mode: the graph's colours follow the page's.
        dark = browser.new_page(viewport=PHONE, color_scheme="dark")
        dark.goto(f"{url}/boards/101")
        light = browser.new_page(viewport=PHONE, color_scheme="light")
        light.goto(f"{url}/boards/101")
        style = "getComputedStyle(document.querySelector('svg.graph .curve')).stroke"
        assert dark.evaluate(style) != light.evaluate(style)
        dark.close()
        light.close()
