"""Fixtures of the web and HTML board tests: alice and bob signed up, board 101 between
them (the shared database fixtures make each test run on SQLite and PostgreSQL), and headless
Chromium for the tests marked ``browser``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from tests.support.mailer import ADDRESSES, PASSWORDS, Mailer


@pytest.fixture(autouse=True)
def _quick_argon2(quick_argon2: None) -> None:
    """Every web test hashes passwords quickly (tests/support/fixtures.py)."""


@pytest.fixture
def mailer(db_sessions: sessionmaker[Session], db_config: Config) -> Mailer:
    mailer = Mailer(db_sessions, db_config)
    for userid, password in PASSWORDS.items():
        mailer.signup(userid, password, ADDRESSES[userid])
    return mailer


@pytest.fixture
def game(mailer: Mailer) -> Mailer:
    """Board 101: alice (Ohs) against bob (Eks), no moves yet."""
    replies = mailer.send("emergo challenge alice bob")
    # "New Emergo Board 101 alice" (or, before that Subject, "Emergo Board 101 alice").
    assert len(replies) == 2
    assert all(r.subject.endswith("Emergo Board 101 alice") for r in replies)
    return mailer


def chromium_path() -> str | None:
    return os.environ.get("PBM_EMERGO_CHROMIUM") or shutil.which("chromium") or shutil.which(
        "chromium-browser"
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's package, driven by Playwright; nothing is downloaded).
    Without it the test is skipped, except under CI=true, where it fails."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    path = chromium_path()
    if path is None:
        reason = "no Chromium: install Debian's chromium package (or set PBM_EMERGO_CHROMIUM)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " (CI=true: not skipping)")
        pytest.skip(reason)
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()
