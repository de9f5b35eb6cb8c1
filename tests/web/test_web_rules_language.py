"""The web's Rules page in the reader's language: the document of their language
(docs/rules-for-players.LANG.md) with the same pictures, the page's own lines translated,
the sections' anchors the English ones. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.web.app import create_app


@pytest.fixture
def client(db_sessions: sessionmaker[Session]) -> Iterator[TestClient]:
    with TestClient(create_app(db_sessions), raise_server_exceptions=False) as client:
        yield client


def test_a_dutch_browser_gets_the_dutch_rules(client: TestClient) -> None:
    page = client.get("/rules", headers={"Accept-Language": "nl-NL,nl;q=0.9,en;q=0.5"})
    assert page.status_code == 200 and page.headers["Content-Language"] == "nl"
    html = page.text
    assert '<html lang="nl">' in html and "<title>Regels - " in html
    assert '<h1 id="how-to-play-emergo">' not in html and ">Zo speel je Emergo</h1>" in html
    assert '<h2 id="columns-and-prisoners">Torens en gevangenen</h2>' in html
    assert "Voor de zet" in html and "Na e4xe6" in html
    assert "Het lege bord bij de start: elk veld is leeg." in html
    assert 'het paneel <a href="/#play">Spelen</a> op de voorpagina' in html
    assert "How to play" not in html and "Before" not in html


def test_every_language_draws_the_same_pictures(client: TestClient) -> None:
    pages = {
        language: client.get("/rules", headers={"Accept-Language": language}).text
        for language in ("en", "nl", "de", "fr")
    }
    english = pages["en"]
    assert ">How to play Emergo</h1>" in english and "Before" in english
    assert "Comment jouer à Emergo" in pages["fr"] and "Avant le coup" in pages["fr"]
    assert "So spielt man Emergo" in pages["de"] and "Nach c3xc5xe5xg5" in pages["de"]
    for html in pages.values():
        assert html.count('class="rules-figure"') == english.count('class="rules-figure"') >= 5
        assert html.count('id="columns-and-prisoners"') == 1
    engine = client.get("/rules/engine", headers={"Accept-Language": "de"}).text
    assert "<title>Die Spezifikation der Regel-Engine - " in engine
    assert '<a href="/rules">So spielt man Emergo</a> erklärt' in engine
