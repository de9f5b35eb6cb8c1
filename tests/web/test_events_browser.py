"""The events' pages in a real browser (headless Chromium, driven by Playwright), at a
phone's width (375 px: nothing scrolls sideways but the crosstable's own box) and a desktop's
(1280 px): a round robin of four played to its end, its table, crosstable and schedule.
Screenshots in docs/screenshots/ with PBM_EMERGO_UPDATE_SCREENSHOTS=1 (support.KEPT)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.events import advance_events
from pbm_emergo.app.runner import Runner
from pbm_emergo.cli import main
from pbm_emergo.config import Config
from pbm_emergo.db.models import Board, Player
from tests.support.mailer import ADDRESSES, PASSWORDS, Mailer
from tests.support.servers import running, web_server

from .support import shoot

pytest.importorskip("playwright.sync_api")  # the browser fixture: tests/web/conftest.py

pytestmark = [
    pytest.mark.browser,
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]

PHONE = {"width": 375, "height": 740}
WIDE = {"width": 1280, "height": 900}
MORE = {"carol": "carolpw", "dave": "davepw"}
SEATS = ["alice", "bob", "carol", "dave"]


def _advance(mailer: Mailer, sessions: sessionmaker[Session], config: Config) -> None:
    mailer.now += timedelta(minutes=1)
    advance_events(Runner(sessions, config), config, mailer.now)


@pytest.fixture
def played_event(
    mailer: Mailer, db_sessions: sessionmaker[Session], db_config: Config, database_url: str
) -> Mailer:
    """The round robin "autumn" of four, played to its end: the better seed wins."""
    passwords = {**PASSWORDS, **MORE}
    addresses = {**ADDRESSES, **{u: f"{u}@example.org" for u in MORE}}
    for userid in MORE:
        mailer.signup(userid, MORE[userid], addresses[userid])
    assert main(["admin", "event", "create", "autumn", "--format", "round-robin",
                 "--max-players", "4", "--database-url", database_url]) == 0  # fmt: skip
    for userid in SEATS:
        mailer.send(f"emergo join autumn {userid} {passwords[userid]}", sender=addresses[userid])
    for _ in range(4):
        _advance(mailer, db_sessions, db_config)
        with db_sessions() as session:
            boards = session.execute(
                select(Board.number, Board.white_player_id, Board.black_player_id).where(
                    Board.status == "active", Board.event_id.is_not(None)
                )
            ).all()
            names = {pid: userid for pid, userid in session.execute(
                select(Player.id, Player.userid)
            )}  # fmt: skip
        for number, white, black in boards:
            # The later seed loses.
            loser = max(names[white], names[black], key=SEATS.index)
            mailer.send(f"emergo resign {number} {loser} {passwords[loser]}",
                        sender=addresses[loser])  # fmt: skip
    return mailer


def no_horizontal_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_event_pages_in_a_browser(
    browser: Any, played_event: Mailer, database_url: str, tmp_path: Path
) -> None:
    url, args = web_server(database_url, tmp_path / "web.log")
    with running(args, url + "/", tmp_path / "web.log"):
        page = browser.new_page(viewport=PHONE)
        page.goto(f"{url}/events")
        assert "autumn" in page.inner_text("table.list")
        no_horizontal_scroll(page)
        shoot(page, tmp_path, "events-375.png")
        page.click("text=autumn")
        page.wait_for_url(re.compile(r"/events/autumn$"))
        assert "The winner: alice" in page.inner_text("main")
        places = [r.split("\t")[:3] for r in page.inner_text("#standings1").splitlines()[1:]]
        assert [p[1] for p in places] == SEATS
        no_horizontal_scroll(page)
        shoot(page, tmp_path, "event-375.png")
        # A result in the crosstable opens its board.
        page.click("#crosstable a >> nth=0")
        page.wait_for_url(re.compile(r"/boards/\d+$"))
        page.close()
        wide = browser.new_page(viewport=WIDE)
        wide.goto(f"{url}/events")
        shoot(wide, tmp_path, "events-1280.png")
        wide.goto(f"{url}/events/autumn")
        cross = wide.inner_text("#crosstable")
        assert cross.splitlines()[1].split("\t")[:2] == ["1", "alice"]
        shoot(wide, tmp_path, "event-1280.png")
        wide.close()
