"""The web view's lists come a page at a time, and its trailing-slash redirects never trust
the Host header (SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.config import Config
from pbm_emergo.web import app as web_app
from pbm_emergo.web.app import create_app
from tests.support.mailer import Mailer


@pytest.fixture
def client(db_sessions: sessionmaker[Session], db_config: Config) -> Iterator[TestClient]:
    """Boards 101 (alice against bob) and 102 (bob against alice); carol signed up."""
    mailer = Mailer(db_sessions, db_config)
    for userid in ("alice", "bob", "carol"):
        mailer.signup(userid, f"{userid}pw", f"{userid}@example.org")
    for white, black in (("alice", "bob"), ("bob", "alice")):
        [mail, _] = mailer.send(f"emergo challenge {white} {black}", sender=f"{white}@example.org")
        assert "New Emergo Board" in mail.subject, mail.body
    with TestClient(create_app(db_sessions), raise_server_exceptions=False) as client:
        yield client


def boards_on(html: str) -> list[str]:
    return re.findall(r'<a href="/boards/(\d+)">', html)


def players_on(html: str) -> list[str]:
    return re.findall(r'<a href="/players/(\w+)">', html)


def test_a_trailing_slash_redirects_to_a_path_never_to_the_host_header(
    client: TestClient,
) -> None:
    for path, location in (
        ("/standings/", "/standings"),
        ("/history/?page=1", "/history?page=1"),
        ("/boards/101/", "/boards/101"),
        ("/players/alice//", "/players/alice"),
    ):
        answer = client.get(path, headers={"Host": "evil.example"}, follow_redirects=False)
        assert answer.status_code == 307, path
        assert answer.headers["location"] == location
        assert "evil.example" not in answer.text


@pytest.mark.parametrize("path", ["/nothing/", "/%2F%2Fevil.example/", "/boards/101/x/"])
def test_a_trailing_slash_on_no_page_is_not_found(client: TestClient, path: str) -> None:
    answer = client.get(path, headers={"Host": "evil.example"}, follow_redirects=False)
    assert answer.status_code == 404
    assert "location" not in answer.headers


def test_the_front_page_lists_the_active_boards_a_page_at_a_time(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_app, "ACTIVE_PAGE", 1)
    first = client.get("/")
    assert first.status_code == 200
    assert boards_on(first.text) == ["102"]  # the most recent first
    assert '<a href="?page=2" rel="next">' in first.text and 'rel="prev"' not in first.text
    second = client.get("/?page=2")
    assert boards_on(second.text) == ["101"]
    assert '<a href="?page=1" rel="prev">' in second.text and 'rel="next"' not in second.text
    assert client.get("/?page=3").status_code == 404
    assert client.get("/?page=0").status_code == 400


def test_the_standings_come_a_page_at_a_time_ranked_across_pages(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    everyone = players_on(client.get("/standings").text)  # the robots, alice, bob, carol
    assert len(everyone) > 4
    monkeypatch.setattr(web_app, "STANDINGS_PAGE", 2)
    pages = [client.get(f"/standings?page={n}") for n in range(1, (len(everyone) + 3) // 2)]
    shown = [players_on(p.text) for p in pages]
    assert shown == [everyone[i : i + 2] for i in range(0, len(everyone), 2)]
    assert '<a href="?page=2" rel="next">' in pages[0].text and 'rel="prev"' not in pages[0].text
    assert '<td class="n">3</td>' in pages[1].text  # the rank counts on from the first page
    assert '<a href="?page=1" rel="prev">' in pages[1].text
    assert 'rel="next"' not in pages[-1].text
    assert client.get(f"/standings?page={len(pages) + 1}").status_code == 404
    assert client.get("/standings?page=٣").status_code == 400
