"""The read-only web view over a real database (SQLite and PostgreSQL): its pages, the JSON
for tools, the answers to bad input, and that nothing of a player's account leaks."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.db.session import create_engine_for
from pbm_emergo.robot.ladder import LADDER
from pbm_emergo.rules import Game
from pbm_emergo.web.app import create_app
from tests.support.mailer import ADDRESSES, PASSWORDS, Mailer
from tests.support.moves import RATED_OPENING

from .support import CAPTURE_GAME, board_cells, columns_of

PLAYED = CAPTURE_GAME[:12]
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.\w")


@pytest.fixture
def site(game: Mailer) -> Mailer:
    """Board 101 (alice against bob) at move 12 with a comment on move 3; board 102 (bob
    against alice) that alice resigned after four moves each (the fewest for a rated game;
    a resignation before one's first move would decline it); carol signed up and has played
    nothing."""
    game.play(101, PLAYED[:2])
    game.move(101, "alice", PLAYED[2], comment="A comment with <b>markup</b> & more")
    game.play(101, PLAYED[3:], first_mover="bob")
    game.signup("carol", "carolpw", "carol@example.org")
    game.send("emergo challenge bob alice", sender="bob@example.org")
    game.play(102, list(RATED_OPENING), first_mover="bob")
    game.move(102, "alice", "resign")
    return game


@pytest.fixture
def client(site: Mailer, db_sessions: sessionmaker[Session]) -> Iterator[TestClient]:
    with TestClient(create_app(db_sessions), raise_server_exceptions=False) as client:
        yield client


def test_the_front_page_lists_active_boards_and_results(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert 'href="/boards/101"' in page.text and 'href="/boards/102"' in page.text
    assert "bob won" in page.text and "resigned" in page.text
    assert "<script" not in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]


def test_the_board_page_draws_the_current_position(client: TestClient) -> None:
    page = client.get("/boards/101")
    assert page.status_code == 200
    position = Game.from_moves(PLAYED).position
    cells = board_cells(page.text)
    assert len(cells.cells) == 41 and not cells.repeated
    assert {c.name: c.column for c in cells.cells.values() if c.column} == columns_of(
        position.to_text()
    )
    assert {c.name: c.last for c in cells.cells.values() if c.last} == {"f7": ("landed",)}
    assert "It is alice&#39;s turn (Ohs): move 13." in page.text
    assert "move 12 of 12" in page.text
    # Every move, with a link to the board after it; comments are for the players only.
    for n, notation in enumerate(PLAYED, start=1):
        assert f'<a href="?move={n}">{notation}</a>' in page.text
    assert "A comment with" not in page.text


@pytest.mark.parametrize("n", [0, 1, 10, 11, 12])
def test_stepping_through_the_game(client: TestClient, n: int) -> None:
    page = client.get(f"/boards/101?move={n}")
    assert page.status_code == 200
    position = Game.from_moves(PLAYED[:n]).position
    cells = board_cells(page.text)
    assert {c.name: c.column for c in cells.cells.values() if c.column} == columns_of(
        position.to_text()
    )
    marked = {name for name, c in cells.cells.items() if c.last}
    if n == 0:
        assert not marked
    else:
        assert PLAYED[n - 1].split("x")[-1].split("-")[-1] in marked
    links = dict(re.findall(r'<a href="([^"]+)" rel="(\w+)"', page.text))
    rels = {rel: href for href, rel in links.items()}
    assert ("prev" in rels) == (n > 0) and ("next" in rels) == (n < len(PLAYED))
    if n > 0:
        assert rels["prev"] == f"?move={n - 1}"
    if n < len(PLAYED):
        assert rels["next"] == f"?move={n + 1}"


def test_a_finished_board_shows_the_result(client: TestClient) -> None:
    page = client.get("/boards/102")
    assert page.status_code == 200
    assert "bob (Ohs) wins: alice resigned." in page.text
    assert "Rating changes:" in page.text
    # Said once (the status at the game's end is its result), each change kept on one line.
    assert page.text.count("bob (Ohs) wins: alice resigned.") == 1
    assert re.search(r'<span class="nowrap">alice 1600 -&gt; \d+ \(-\d+\)</span>', page.text)
    earlier = client.get("/boards/102?move=1").text
    assert '<p class="status">After move 1 ' in earlier


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/boards/999", 404, "There is no board 999."),
        ("/boards/abc", 400, "The board number must be a whole number"),
        ("/boards/101?move=13", 400, "?move= must be between 0 and 12"),
        ("/boards/101?move=-1", 400, "?move= must be a whole number"),
        ("/boards/101?move=x", 400, "?move= must be a whole number"),
        ("/boards/101?move=%EF%BC%91", 400, "?move= must be a whole number"),  # a wide 1
        ("/boards/101?move=99999999999999999999", 400, "?move= must be a whole number"),
        ("/players/nobody", 404, "There is no player"),
        ("/nowhere", 404, "Not Found"),
        ("/history?page=0", 400, "?page= counts from 1."),
        ("/history?page=7", 404, "There is no page 7"),
    ],
)
def test_bad_input_gets_a_page_that_says_why(
    client: TestClient, path: str, status: int, says: str
) -> None:
    page = client.get(path)
    assert page.status_code == status
    assert page.headers["content-type"].startswith("text/html")
    assert says.replace("'", "&#39;") in page.text
    assert "Traceback" not in page.text


def test_a_wrong_method_is_refused(client: TestClient) -> None:
    assert client.post("/boards/101").status_code == 405


def test_the_player_page(client: TestClient) -> None:
    page = client.get("/players/ALICE")  # userids in any letter case
    assert page.status_code == 200
    assert "<h1>alice</h1>" in page.text
    assert "won 0, lost 1, drawn 0" in page.text
    assert 'href="/boards/101"' in page.text and 'href="/boards/102"' in page.text
    carol = client.get("/players/carol")
    assert carol.status_code == 200 and "No boards yet." in carol.text


def test_the_robots_ladder_ratings_on_the_standings_and_their_pages(client: TestClient) -> None:
    entry = LADDER["robot2"]
    shown = f"ladder Elo {entry.rating} ({entry.low}-{entry.high})"
    standings = client.get("/standings").text
    assert f'<a href="/players/robot2">robot2</a> <span class="muted">{shown}</span>' in standings
    assert '<a href="/players/alice">alice</a></td>' in standings
    assert "the random mover at 0" in standings
    page = client.get("/players/robot2").text
    assert f"<p>L{shown[1:]}.</p>" in page and "the random mover at 0" in page
    assert "ladder Elo" not in client.get("/players/alice").text.lower()


def test_standings_and_history(client: TestClient) -> None:
    standings = client.get("/standings")
    assert standings.status_code == 200
    order = re.findall(r'<a href="/players/(\w+)">', standings.text)
    # bob won a rated game, alice lost one: both provisional; carol has played none: inactive.
    assert [u for u in order if u in ("alice", "bob", "carol")] == ["bob", "alice", "carol"]
    provisional = standings.text.index("<h2>Provisional players (rating deviation above 110)</h2>")
    inactive = standings.text.index(
        "<h2>Inactive players (no game under way, no rated game for 365 days)"
    )
    assert provisional < standings.text.index('href="/players/alice"') < inactive
    assert inactive < standings.text.index('href="/players/carol"')
    assert "<h2>Established players</h2>" not in standings.text
    history = client.get("/history")
    assert history.status_code == 200
    assert 'href="/boards/102"' in history.text and 'href="/boards/101"' not in history.text


def test_the_api_gives_players_moves_position_and_outcome(client: TestClient) -> None:
    answer = client.get("/api/boards/101")
    assert answer.status_code == 200
    data = answer.json()
    assert data["players"]["white"]["userid"] == "alice"
    assert data["players"]["black"]["userid"] == "bob"
    assert [m["notation"] for m in data["moves"]] == PLAYED
    assert all("comment" not in m for m in data["moves"])
    assert "A comment with" not in answer.text
    assert data["position"] == Game.from_moves(PLAYED).position.to_text()
    assert data["to_move"] == "alice" and data["outcome"] is None and data["votes"] == []
    over = client.get("/api/boards/102").json()
    assert over["outcome"]["winner"] == "bob" and over["outcome"]["reason"] == "resigned"
    assert set(over["outcome"]["rating_changes"]) == {"white", "black"}
    missing = client.get("/api/boards/5")
    assert missing.status_code == 404 and missing.json() == {"error": "There is no board 5."}
    assert client.get("/api/boards/x").status_code == 400


def test_nothing_of_an_account_leaks(
    client: TestClient, db_sessions: sessionmaker[Session]
) -> None:
    from pbm_emergo.db.models import Player

    with db_sessions() as session:
        hashes = [p.password_hash for p in session.query(Player)]
    pages = ["/", "/boards/101", "/boards/102", "/players/alice", "/players/bob",
             "/players/carol", "/standings", "/history", "/api/boards/101", "/api/boards/102",
             "/boards/999", "/boards/101?move=99"]  # fmt: skip
    for path in pages:
        text = client.get(path).text
        assert not ADDRESS.search(text), path
        for secret in [*hashes, *PASSWORDS.values(), "carolpw", *ADDRESSES.values()]:
            assert secret not in text, path
        assert "$argon2" not in text


def test_a_failure_inside_says_nothing_of_its_cause(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A database that cannot be opened: every page fails inside.
    engine = create_engine_for(f"sqlite:///{tmp_path / 'missing' / 'secret-name.sqlite3'}")
    app = create_app(sessionmaker(engine))
    with TestClient(app, raise_server_exceptions=False) as client:
        for path in ("/boards/101", "/api/boards/101", "/standings"):
            answer = client.get(path)
            assert answer.status_code == 500
            for detail in ("OperationalError", "sqlite", "SELECT", "Traceback", "secret-name"):
                assert detail not in answer.text, (path, detail)
            assert "Something went wrong on our side" in answer.text
    engine.dispose()
    assert "OperationalError" in caplog.text  # the operator finds it in the log
