"""The board for screen readers, as Chromium's accessibility tree gives it to them: the
picture of a board mail and of the board page is a data table with a caption, row and
column headers, and each cell named in the words of the list board (``e6: Ohs man, 2 Eks
prisoners``); the last move and the legal moves follow as text. Read with Playwright's
aria snapshot of the table (what a screen reader is handed), never from the HTML source."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbm_emergo.rules import CELLS, Game
from pbm_emergo.rules.words import piece_words
from tests.support.mailer import Mailer
from tests.support.servers import running, web_server

from .support import CAPTURE_GAME, shoot

pytest.importorskip("playwright.sync_api")  # the browser fixture: tests/web/conftest.py

pytestmark = [
    pytest.mark.browser,
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]

PHONE = {"width": 375, "height": 740}


def check_tree(page: Any, moves: list[str]) -> str:
    """The board table's accessibility tree names every cell as the list board does."""
    tree = page.locator("table.emergo-board").first.aria_snapshot()
    position = Game.from_moves(moves).position
    to_move = "Ohs" if position.to_move == "white" else "Eks"
    assert f'table "The board: rows a (top) to i, columns 1 (left) to 9; {to_move} to move"' in tree
    for n in range(1, 10):
        assert f'columnheader "column {n}"' in tree
    for row in "abcdefghi":
        assert f'rowheader "row {row}"' in tree
    for cell in CELLS:
        column = position.column(cell)
        words = "empty" if column is None else piece_words(column)
        assert f'cell "{cell}: {words}' in tree, cell
    count = len(position.legal_moves())
    moves = "1 legal move" if count == 1 else f"{count} legal moves"
    assert page.inner_text(".emergo-to-move") == f"{to_move} to move, {moves}"
    return tree


def test_the_board_mail_reads_as_a_table_of_named_cells(browser: Any, game: Mailer) -> None:
    replies = game.play(101, CAPTURE_GAME)
    assert replies[0].html is not None
    page = browser.new_page(viewport=PHONE)
    page.set_content(replies[0].html)
    tree = check_tree(page, CAPTURE_GAME)
    # The last move's cells say their part in it.
    assert 'cell "e6: Ohs man, 2 Eks prisoners; the last move went here"' in tree
    g5 = Game.from_moves(CAPTURE_GAME).position.column("g5")
    g5_words = "empty" if g5 is None else piece_words(g5)
    assert f'cell "g5: {g5_words}; captured in the last move"' in tree
    assert "Last move g4xg6xe6, by Ohs" in page.inner_text(".emergo-legend")
    page.close()


def test_the_board_page_and_the_rules_read_as_tables_of_named_cells(
    browser: Any,
    game: Mailer,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game.play(101, CAPTURE_GAME)
    monkeypatch.setenv("PBM_EMERGO_ADDRESS", "games@emergo.example.org")
    url, args = web_server(database_url, tmp_path / "web.log")
    with running(args, url + "/", tmp_path / "web.log"):
        page = browser.new_page(viewport=PHONE)
        page.goto(f"{url}/boards/101")
        check_tree(page, CAPTURE_GAME)
        page.goto(f"{url}/boards/101?move=0")
        check_tree(page, [])
        # The rules' pictures are the same tables: the capture, after e4xe6.
        page.goto(f"{url}/rules")
        tables = page.locator("table.emergo-board")
        assert tables.count() == 8
        after = tables.nth(2).aria_snapshot()
        assert 'cell "e6: Ohs man, 1 Eks prisoner; the last move went here"' in after
        assert 'cell "e5: empty; captured in the last move"' in after
        # The capture as a phone shows it (docs/screenshots/rules-capture-375.png).
        page.evaluate("document.getElementById('capturing').scrollIntoView()")
        shoot(page, tmp_path, "rules-capture-375.png", full_page=False)
        page.close()
