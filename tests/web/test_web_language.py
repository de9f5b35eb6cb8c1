"""The web pages in the reader's language: ``Accept-Language``, the switch in the page
(``?lang=``, kept in a cookie), English otherwise; command words stay English. On SQLite and
PostgreSQL, with a board being played."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.config import Config
from pbm_emergo.web.app import create_app
from pbm_emergo.web.language import accepted
from tests.support.mailer import Mailer


@pytest.fixture
def client(db_sessions: sessionmaker[Session], db_config: Config) -> Iterator[TestClient]:
    mailer = Mailer(db_sessions, db_config)
    for userid in ("alice", "bob"):
        mailer.signup(userid, f"{userid}pw", f"{userid}@example.org")
    mailer.send("emergo challenge alice bob", sender="alice@example.org")
    with TestClient(create_app(db_sessions), raise_server_exceptions=False) as client:
        yield client


def test_a_dutch_browser_gets_the_dutch_front_page(client: TestClient) -> None:
    page = client.get("/", headers={"Accept-Language": "nl-NL,nl;q=0.9,en;q=0.5"})
    assert page.status_code == 200
    assert page.headers["Content-Language"] == "nl"
    assert "Accept-Language" in page.headers["Vary"]
    html = page.text
    assert '<html lang="nl">' in html
    assert "<h1>Emergo per mail</h1>" in html and "<h2>Borden in het spel</h2>" in html
    assert '<a href="/standings">Ranglijst</a>' in html
    assert "<code>signup YOURID PASSWORD</code> maakt je account aan." in html  # words English
    assert 'href="/boards/101"' in html
    assert "Boards being played" not in html


def test_english_without_a_language_the_server_writes(client: TestClient) -> None:
    for header in ({}, {"Accept-Language": "es-ES,ja;q=0.8"}):
        page = client.get("/", headers=header)
        assert page.headers["Content-Language"] == "en"
        assert "<h2>Boards being played</h2>" in page.text and '<html lang="en">' in page.text


def test_the_switch_in_the_page_wins_and_is_kept(client: TestClient) -> None:
    page = client.get("/?lang=de", headers={"Accept-Language": "nl"})
    assert "<h2>Laufende Partien</h2>" in page.text
    assert '<strong lang="de" aria-current="true">Deutsch</strong>' in page.text
    assert '<a href="?lang=fr" lang="fr" hreflang="fr">Français</a>' in page.text
    assert "lang=de" in page.headers["set-cookie"]
    # The cookie keeps it on the next page, over the browser's wish.
    later = client.get("/", headers={"Accept-Language": "nl"})
    assert "<h2>Laufende Partien</h2>" in later.text
    assert '<a href="/rules">Regeln</a>' in later.text
    # An unknown choice changes nothing.
    assert "<h2>Laufende Partien</h2>" in client.get("/?lang=xx").text


def test_accept_language_is_read_by_quality() -> None:
    assert accepted("fr;q=0.4, de-CH, en;q=0.8, nl;q=0") == ["de-CH", "en", "fr"]
    assert accepted("*") == [] and accepted("") == []


def test_the_lists_in_dutch(client: TestClient) -> None:
    dutch = {"Accept-Language": "nl"}
    standings = client.get("/standings", headers=dutch).text
    assert "<h1>Ranglijst</h1>" in standings and "<th>Speler</th>" in standings
    assert '<a href="/players/alice">alice</a>' in standings
    history = client.get("/history", headers=dutch).text
    assert "<h1>Afgelopen partijen</h1>" in history
    assert "<p>Er is nog geen partij afgelopen.</p>" in history
    assert "<h1>Standings</h1>" in client.get("/standings").text
