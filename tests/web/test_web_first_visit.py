"""A newcomer's first visit to the web view: the front page says how to join (the server's
address from the configuration, the first three mails, the rules), /rules teaches the rules
with pictures (docs/rules-for-players.md) and /rules/engine shows docs/rules.md, every board
page explains its picture, and the pages have one look (dark mode too) without loading
anything from anywhere. In Chromium: no sideways scrolling on a phone, dark mode, and the
screenshots docs/ shows."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.config import Config
from pbm_emergo.views.player_rules import player_rules_markdown
from pbm_emergo.web.app import create_app
from pbm_emergo.web.rules import ENGINE_HEADING, render_rules, rules_path
from tests.support.mailer import Mailer
from tests.support.servers import running, web_server

from .support import CAPTURE_GAME, shoot

SERVER = "games@emergo.example.org"
PAGES = ["/", "/rules", "/rules/engine", "/boards/101", "/boards/102", "/boards/101?move=0",
         "/players/alice", "/standings", "/history", "/boards/999"]  # fmt: skip
PHONE = {"width": 375, "height": 740}
WIDE = {"width": 1280, "height": 900}


@pytest.fixture
def site(game: Mailer) -> Mailer:
    """Board 101 (alice against bob) after 12 moves, one with a comment; board 102 (bob
    against alice), resigned by alice after a move each."""
    game.play(101, CAPTURE_GAME[:2])
    game.move(101, "alice", CAPTURE_GAME[2], comment="Only for bob's eyes")
    game.play(101, CAPTURE_GAME[3:12], first_mover="bob")
    game.send("emergo challenge bob alice", sender="bob@example.org")
    game.play(102, ["e4", "d6", "c4"], first_mover="bob")
    game.move(102, "alice", "resign")
    return game


@pytest.fixture
def client(
    site: Mailer, db_sessions: sessionmaker[Session], db_config: Config
) -> Iterator[TestClient]:
    config = dataclasses.replace(db_config, address=SERVER)
    with TestClient(create_app(db_sessions, config), raise_server_exceptions=False) as client:
        yield client


def text_of(html: str) -> str:
    """The page's words, tags removed and spaces folded (entities kept as written)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def engine_headings() -> list[str]:
    """The second-level headings of docs/rules.md before the section on the rules engine."""
    markdown = rules_path().read_text(encoding="utf-8")
    end = ENGINE_HEADING.search(markdown)
    assert end is not None
    return re.findall(r"^## (.+)$", markdown[: end.start()], re.MULTILINE)


def players_headings() -> list[str]:
    """The second-level headings of docs/rules-for-players.md."""
    return re.findall(r"^## (.+)$", player_rules_markdown(), re.MULTILINE)


def test_the_front_page_says_how_to_join(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    play = page.text[page.text.index('id="play"') : page.text.index("</section>")]
    assert f'<a class="address" href="mailto:{SERVER}">{SERVER}</a>' in play
    words = text_of(play)
    first = words.index("signup YOURID PASSWORD")
    challenge = words.index("emergo challenge YOURID robot1")
    assert first < challenge < words.index("emergo move BOARD YOURID PASSWORD MOVE")
    assert "confirm CODE" in words and "Subject" in words
    assert 'href="/rules"' in play
    # The header names the server (the domain of its address) on every page.
    assert "<small>emergo.example.org</small>" in page.text
    assert "<title>Emergo boards - emergo.example.org</title>" in page.text


def test_without_a_configuration_the_front_page_shows_the_default_address(
    site: Mailer, db_sessions: sessionmaker[Session]
) -> None:
    with TestClient(create_app(db_sessions)) as client:
        page = client.get("/")
    assert 'href="mailto:pbmserv@localhost"' in page.text


def test_the_rules_page_teaches_the_rules_for_players_with_pictures(
    client: TestClient,
) -> None:
    page = client.get("/rules")
    assert page.status_code == 200
    headings = players_headings()
    assert len(headings) >= 8 and "Capturing" in headings
    found = re.findall(r'<h2 id="([a-z0-9-]+)">(.+?)</h2>', page.text)
    assert [title for _, title in found] == headings
    assert "<h1" in page.text and "How to play Emergo" in page.text
    # The pictures are the board's own: the empty diamond, then before and after each move.
    assert page.text.count('class="emergo-board"') == 8
    assert "After e4xe6" in page.text and "After c3xc5xe5xg5" in page.text
    assert '<figcaption style="margin:6px 0 0;text-align:center">Ohs jumps from e4' in page.text
    assert "<code>e4xe6</code>" in page.text
    # The engine's specification is a link away, for the curious.
    assert 'href="/rules/engine"' in page.text
    # The board legend links to a section that exists.
    assert ("columns-and-prisoners", "Columns and prisoners") in found


def test_the_engine_rules_page_renders_the_specification(client: TestClient) -> None:
    page = client.get("/rules/engine")
    assert page.status_code == 200
    found = re.findall(r'<h2 id="([a-z0-9-]+)">(.+?)</h2>', page.text)
    assert [title for _, title in found] == engine_headings()
    assert "rules this server enforces" in page.text and "<code>e4xc4</code>" in page.text
    # The programmers' part (the engine, its Python API) is left out.
    assert "Python API" not in page.text and "from pbm_emergo.rules import" not in page.text
    assert 'href="/rules"' in page.text


def test_the_rules_markdown_cannot_put_markup_in_the_page() -> None:
    rules = render_rules('# Title\n\n<script>alert(1)</script>\n\n## A <b>b</b>\n\ntext\n')
    assert "<script" not in rules.html and "&lt;script&gt;" in rules.html
    assert "<b>" not in rules.html
    assert rules.title == "Title" and rules.headings == ("A <b>b</b>",)


@pytest.mark.parametrize("path", ["/boards/101", "/boards/101?move=0", "/boards/101?move=7",
                                  "/boards/102"])  # fmt: skip
def test_every_board_page_explains_its_picture(client: TestClient, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200
    area = page.text[page.text.index('<div class="boardarea">') :]
    board, legend = area.index('class="emergo-board"'), area.index('<aside class="legend"')
    assert board < legend  # beside (after) the picture, in the same area
    words = text_of(area[legend : area.index("</aside>")])
    meanings = ("Ohs (white", "A number: the piece is a column of that many men",
                "A band beneath, in the other colour", "prisoners", "An empty cell")  # fmt: skip
    for meaning in meanings:
        assert meaning in words, meaning
    marks = ("Where the last move started", "Where it entered, stepped or landed",
             "A column it jumped")  # fmt: skip
    has_last_move = not path.endswith("move=0")
    assert all((mark in words) == has_last_move for mark in marks)


def test_comments_stay_off_the_pages(client: TestClient) -> None:
    for path in ("/", "/boards/101", "/boards/101?move=3", "/api/boards/101"):
        assert "bob&#39;s eyes" not in client.get(path).text
        assert "bob's eyes" not in client.get(path).text


class Resources(HTMLParser):
    """What a page would fetch or run: scripts, style sheets, images, frames, and links that
    leave the site (other than mailto:)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in ("script", "link", "img", "iframe", "object", "embed", "svg", "video",
                   "audio", "source", "base"):  # fmt: skip
            self.found.append(tag)
        if "src" in values or "srcset" in values or "style" in values and "url(" in str(
            values["style"]
        ):
            self.found.append(f"{tag} loads something")
        href = values.get("href") or ""
        if tag == "a" and not re.match(r"(/|\?|#|mailto:)", href):
            self.found.append(f"a link to {href}")
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def resources_of(html: str) -> Resources:
    parser = Resources()
    parser.feed(html)
    parser.close()
    return parser


def test_no_page_loads_or_runs_anything(client: TestClient) -> None:
    for path in PAGES:
        page = client.get(path)
        found = resources_of(page.text)
        assert found.found == [], path
        css = "".join(found.styles)
        assert "url(" not in css and "@import" not in css and "@font-face" not in css, path
        policy = page.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src" not in policy


def test_one_style_for_every_page_with_a_dark_mode(client: TestClient) -> None:
    sheets = {path: "".join(resources_of(client.get(path).text).styles) for path in PAGES}
    assert len(set(sheets.values())) == 1  # one look: the same sheet on every page
    css = sheets["/"]
    dark = re.search(r"@media \(prefers-color-scheme: dark\) \{(.+?)\n\}", css, re.DOTALL)
    assert dark is not None
    for variable in ("--bg", "--fg", "--link", "--card"):
        assert variable + ":" in dark.group(1)
    assert "#dcb982" in css  # the tan of the board's cells


def test_the_front_page_stays_light(client: TestClient) -> None:
    # A board being played, a result, the Play panel and the style sheet (docs/web.md).
    assert len(client.get("/").content) < 9000


# --- in Chromium -----------------------------------------------------------------------------

def scroll_width(page: Any) -> int:
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert isinstance(width, int)
    return width


def luminance(css_colour: str) -> float:
    red, green, blue = (int(n) for n in re.findall(r"\d+", css_colour)[:3])
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


BACKGROUNDS = """() => [document.body, document.querySelector('.card, .plank, table.list')]
  .filter(Boolean).map(e => getComputedStyle(e).backgroundColor)"""


@pytest.fixture
def web(
    site: Mailer, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """``pbm-emergo web`` over the site's database, for the server SERVER."""
    monkeypatch.setenv("PBM_EMERGO_ADDRESS", SERVER)
    url, args = web_server(database_url, tmp_path / "web.log")
    with running(args, url + "/", tmp_path / "web.log"):
        yield url


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.browser
def test_the_front_page_and_the_rules_fit_a_phone_and_a_desktop(
    browser: Any, web: str, tmp_path: Path
) -> None:
    for viewport, size in ((PHONE, "375"), (WIDE, "1280")):
        page = browser.new_page(viewport=viewport)
        requests: list[str] = []
        page.on("request", lambda request, seen=requests: seen.append(request.url))
        for path, name in (("/", "home"), ("/rules", "rules")):
            answer = page.goto(web + path)
            assert answer is not None and answer.status == 200
            assert scroll_width(page) <= viewport["width"], f"{path} at {size} px"
            shoot(page, tmp_path, f"{name}-{size}.png", full_page=name == "home")
        assert all(url.startswith(web) for url in requests)  # the pages alone, nothing else
        page.goto(web + "/")
        play = page.inner_text("#play")
        assert SERVER in play and "signup YOURID PASSWORD" in play
        page.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.browser
def test_dark_mode_follows_the_system_and_the_board_stays_readable(
    browser: Any, web: str, tmp_path: Path
) -> None:
    seen = {}
    for scheme in ("light", "dark"):
        page = browser.new_page(viewport=PHONE, color_scheme=scheme)
        page.goto(web + "/")
        body, card = page.evaluate(BACKGROUNDS)
        text = page.evaluate("getComputedStyle(document.body).color")
        seen[scheme] = (luminance(body), luminance(card), luminance(text))
        if scheme == "dark":
            shoot(page, tmp_path, "home-dark-375.png")
            page.goto(web + "/boards/101")
            plank = page.evaluate("getComputedStyle(document.querySelector('.plank'))"
                                  ".backgroundColor")  # fmt: skip
            assert luminance(plank) > 0.8  # the board keeps its light plank
            assert scroll_width(page) <= PHONE["width"]
        page.close()
    assert seen["light"][0] > 0.8 and seen["light"][2] < 0.3
    assert seen["dark"][0] < 0.2 and seen["dark"][1] < 0.25 and seen["dark"][2] > 0.7
