"""The operator's console in a real browser (headless Chromium, as tests/web/test_browser.py):
``pbm-emergo web`` with an operators' file; the operator logs in, opens a board (its
moves and picture) and resigns it for a player from the support page. Screenshots kept next
to the test's files (and in docs/screenshots/ with PBM_EMERGO_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.cli import main
from pbm_emergo.db.models import Board
from tests.support.mailer import Mailer
from tests.support.servers import running, web_server

from .support import shoot

pytest.importorskip("playwright.sync_api")  # the browser fixture: tests/web/conftest.py

pytestmark = [
    pytest.mark.browser,
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]

DESKTOP = {"width": 1280, "height": 900}


def test_an_operator_logs_in_and_resigns_a_game(
    browser: Any,
    game: Mailer,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    db_sessions: sessionmaker[Session],
) -> None:
    game.play(101, ["c7", "h6", "c3"])
    users = tmp_path / "operators"
    monkeypatch.setenv("PBM_EMERGO_CONSOLE_USERS_FILE", str(users))
    monkeypatch.setattr("sys.stdin", io.StringIO("olga-console-pw1\n"))
    assert main(["admin", "console-user", "olga", "--database-url", database_url]) == 0
    url, args = web_server(database_url, tmp_path / "web.log")
    args[args.index("--log-level") + 1] = "INFO"  # the console's log lines
    with running(args, url + "/", tmp_path / "web.log"):
        page = browser.new_page(viewport=DESKTOP)
        page.goto(f"{url}/admin/board/details/101")
        assert "/admin/login" in page.url  # nothing without a login
        page.fill("input[name=username]", "olga")
        page.fill("input[name=password]", "olga-console-pw1")
        page.click("button[type=submit]")
        page.wait_for_url(f"{url}/admin/")
        page.goto(f"{url}/admin/board/details/101")
        assert page.locator("[data-cell]").count() == 41
        assert "c3" in page.inner_text("body")
        shoot(page, tmp_path, "console-board.png")

        page.goto(f"{url}/admin/support?board=101")
        form = page.locator("#case-resign")
        assert form.locator("input[name=board]").input_value() == "101"
        form.locator("input[name=userid]").fill("bob")
        form.locator("input[name=reason]").fill("gone for good, said so by phone")
        form.locator("button[type=submit]").click()
        page.wait_for_selector("#done")
        assert "board 101: resigned for bob, alice wins" in page.inner_text("#done")
        shoot(page, tmp_path, "console-support.png", full_page=False)
    log = (tmp_path / "web.log").read_text()
    assert "console operator=olga action=resign" in log
    with db_sessions() as session:
        board = session.get(Board, 101)
        assert board is not None and board.outcome_reason == "resigned"
