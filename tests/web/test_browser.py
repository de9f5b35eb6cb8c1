"""What a person sees, in a real browser: headless Chromium (Debian's chromium package,
driven by Playwright) opens the HTML board mail and the web pages, and checks the 41 cells
in a diamond, the pieces where the rules engine puts them, the last move highlighted, and
that a phone's width (375 px) needs no horizontal scrolling. Screenshots are kept next to
the test's files; with PBM_EMERGO_UPDATE_SCREENSHOTS=1 those docs/ shows (support.KEPT) also
replace theirs in docs/screenshots/. The front page and the rules: test_web_first_visit.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pbm_emergo.rules import CELLS, Game
from tests.support.mailer import Mailer
from tests.support.servers import running, web_server

from .support import CAPTURE_GAME, columns_of, shoot

pytest.importorskip("playwright.sync_api")  # the browser fixture: tests/web/conftest.py

pytestmark = [
    pytest.mark.browser,
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]

PHONE = {"width": 375, "height": 740}
DESKTOP = {"width": 1000, "height": 900}
WIDE = {"width": 1280, "height": 900}
MID_GAME = CAPTURE_GAME  # 31 moves, the last a capture of two jumps


@pytest.fixture
def mid_game(game: Mailer) -> Mailer:
    game.play(101, MID_GAME[:-1])
    return game


@pytest.fixture
def board_mail(mid_game: Mailer) -> str:
    """The HTML part of the board mail after the last move (with a comment)."""
    replies = mid_game.move(101, "alice", MID_GAME[-1], comment="Two men at once.\nYour move.")
    html = replies[0].html
    assert html is not None
    return html


# What the page shows, measured in the browser: each cell's box, its colour, its piece.
CELLS_SEEN = """
() => [...document.querySelectorAll('[data-cell]')].map(cell => {
  const box = cell.getBoundingClientRect();
  const style = getComputedStyle(cell);
  const parts = [...cell.querySelectorAll('div')].map(div => {
    const s = getComputedStyle(div);
    const b = div.getBoundingClientRect();
    return {background: s.backgroundColor, text: div.textContent.trim(),
            width: b.width, height: b.height, top: b.top};
  });
  return {name: cell.dataset.cell, column: cell.dataset.column || null,
          last: cell.dataset.last || null, x: box.left + box.width / 2,
          y: box.top + box.height / 2, width: box.width, height: box.height,
          visible: box.width > 0 && box.height > 0 && style.visibility !== 'hidden',
          background: style.backgroundColor, outline: style.outlineStyle, parts};
})
"""

WHITE_MAN = "rgb(251, 251, 248)"
BLACK_MAN = "rgb(38, 38, 38)"


def check_board(page: Any, moves: list[str]) -> dict[str, dict[str, Any]]:
    """The 41 cells are drawn as a diamond and show the position after ``moves``, with the
    last of them highlighted. Returns what was seen, by cell."""
    seen = {cell["name"]: cell for cell in page.evaluate(CELLS_SEEN)}
    assert sorted(seen) == sorted(CELLS)
    assert all(cell["visible"] and cell["width"] >= 30 for cell in seen.values())
    # The diamond: cells of one row share a height on the page, cells of one column a
    # left-right place, rows go down from a to i and columns right from 1 to 9.
    for axis, key in (("y", 0), ("x", 1)):
        groups: dict[str, list[float]] = {}
        for name, cell in seen.items():
            groups.setdefault(name[key], []).append(cell[axis])
        places = [groups[k][0] for k in sorted(groups)]
        assert all(max(g) - min(g) < 1 for g in groups.values())
        assert places == sorted(places) and len(set(places)) == 9
    # The pieces of the position the rules engine reaches, in their colours.
    position = Game.from_moves(moves).position
    assert {n: c["column"] for n, c in seen.items() if c["column"]} == columns_of(
        position.to_text()
    )
    for name, cell in seen.items():
        column = position.column(name)
        if column is None:
            assert cell["parts"] == [], name
            continue
        cap = cell["parts"][0]
        assert cap["background"] == (WHITE_MAN if column.owner == "white" else BLACK_MAN)
        assert cap["text"] == (str(column.own) if column.height > 1 else "")
        if column.prisoners:
            band = cell["parts"][1]
            assert band["background"] == (BLACK_MAN if column.owner == "white" else WHITE_MAN)
            assert band["text"] == str(column.prisoners)
            assert band["top"] > cap["top"]  # the prisoners beneath the cap
        else:
            assert len(cell["parts"]) == 1
    # The last move stands out: its cells have colours no other cell has.
    marked = {n for n, c in seen.items() if c["last"]}
    plain = {seen[n]["background"] for n in seen if n not in marked}
    assert len(plain) == 1
    for name in marked:
        assert seen[name]["background"] not in plain and seen[name]["outline"] != "none"
    return seen


def board_and_legend(page: Any) -> tuple[dict[str, float], dict[str, float]]:
    """The boxes of the board picture and of its legend on a board page."""
    return page.locator(".plank").bounding_box(), page.locator(".legend").bounding_box()


def no_horizontal_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{width} px wide"


def test_the_board_mail_in_a_browser(browser: Any, board_mail: str, tmp_path: Path) -> None:
    html = board_mail
    for viewport, name in ((PHONE, "board-mail.png"), (DESKTOP, "board-mail-wide.png")):
        page = browser.new_page(viewport=viewport)
        requests: list[str] = []
        page.on("request", lambda request, seen=requests: seen.append(request.url))
        page.set_content(html)
        seen = check_board(page, MID_GAME)
        assert {n for n, c in seen.items() if c["last"]} == {"g4", "g5", "g6", "f6", "e6"}
        assert requests == []  # nothing fetched: no images, fonts or styles from elsewhere
        no_horizontal_scroll(page)
        body = page.inner_text("body")
        assert "Ohs (alice) in hand: 0" in body and "Two men at once." in body
        shoot(page, tmp_path, name)
        page.close()


def test_the_board_mail_without_style_sheets_or_svg_still_shows_the_board(
    browser: Any, board_mail: str
) -> None:
    # Mail clients that drop <style> and SVG: the picture uses neither, only inline styles.
    html = board_mail
    assert "<style" not in html and "<svg" not in html
    page = browser.new_page(viewport=PHONE)
    page.set_content(html)
    assert page.evaluate("document.styleSheets.length") == 0
    check_board(page, MID_GAME)
    page.close()


def test_the_board_page_in_a_browser(
    browser: Any, board_mail: str, database_url: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PBM_EMERGO_ADDRESS", "games@emergo.example.org")  # its header
    url, args = web_server(database_url, tmp_path / "web.log")
    with running(args, url + "/", tmp_path / "web.log"):
        page = browser.new_page(viewport=PHONE)
        page.goto(f"{url}/boards/101")
        check_board(page, MID_GAME)
        no_horizontal_scroll(page)
        # The comment is the players' (by mail): the public page shows the move, not it.
        assert MID_GAME[-1] in page.inner_text("table.moves")
        assert "Two men at once." not in page.inner_text("body")
        # On a phone the legend comes below the board; on a desktop, beside it.
        board, legend = board_and_legend(page)
        assert legend["y"] >= board["y"] + board["height"]
        shoot(page, tmp_path, "board-page.png")
        wide = browser.new_page(viewport=WIDE)
        wide.goto(f"{url}/boards/101")
        board, legend = board_and_legend(wide)
        assert legend["x"] >= board["x"] + board["width"] and legend["y"] < board["y"] + 50
        shoot(wide, tmp_path, "board-page-1280.png")
        wide.close()
        # A person steps back one move, and back again to now.
        # Each page is read once it has loaded (the cells are read by a script, which does
        # not wait for them as a locator does).
        page.click("a[rel=prev]")
        page.wait_for_url(re.compile(r"/boards/101\?move=30$"))
        check_board(page, MID_GAME[:30])
        assert page.inner_text("tr.current").split()[:3] == ["30", "bob", MID_GAME[29]]
        page.click("a[rel=next]")
        page.wait_for_url(re.compile(r"\?move=31$"))
        check_board(page, MID_GAME)
        page.click("a[rel=first]")
        page.wait_for_url(re.compile(r"\?move=0$"))
        check_board(page, [])
        page.close()


def test_every_page_fits_a_phone(
    browser: Any, mid_game: Mailer, database_url: str, tmp_path: Path
) -> None:
    mid_game.send("emergo challenge bob alice", sender="bob@example.org")
    mid_game.play(102, ["e4", "d6"], first_mover="bob")
    mid_game.move(102, "bob", "resign")
    url, args = web_server(database_url, tmp_path / "web.log")
    with running(args, url + "/", tmp_path / "web.log"):
        page = browser.new_page(viewport=PHONE)
        for path in ("/", "/boards/102", "/players/alice", "/standings", "/history", "/rules",
                     "/boards/999", "/boards/101?move=x"):  # fmt: skip
            answer = page.goto(url + path)
            assert answer is not None
            assert answer.status == (404 if "999" in path else 400 if "x" in path else 200)
            no_horizontal_scroll(page)
            assert page.inner_text("h1")
        page.goto(url + "/")
        shoot(page, tmp_path, "front-page.png")
        page.close()
