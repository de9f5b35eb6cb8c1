"""The player's page: the rating with its deviation, and the rating graph (inline SVG, no
script); the standings page's RD column (SQLite and PostgreSQL)."""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.web.app import create_app
from tests.support.mailer import Mailer
from tests.support.moves import RATED_OPENING


def test_the_player_page_draws_the_rating_after_each_rated_game(
    game: Mailer, db_sessions: sessionmaker[Session]
) -> None:
    with TestClient(create_app(db_sessions)) as client:
        before = client.get("/players/alice").text
        assert "rating deviation 350 (provisional)" in before
        assert "<svg" not in before  # no rated game: no graph
        game.play(101, list(RATED_OPENING))
        game.move(101, "bob", "resign")
        page = client.get("/players/alice").text
        assert "Rating <b>1762</b>, rating deviation 290 (provisional)" in page
        graph = page[page.index('<svg class="graph rating"') : page.index("</svg>")]
        assert "The rating after each of 1 rated game, from 1600 to 1762" in graph
        assert graph.count("<circle") == 1 and "board 101: 1600 -&gt; 1762 (+162)" in graph
        assert "<script" not in page
        standings = client.get("/standings").text
        assert '<th class="n">RD</th>' in standings and '<td class="n">290</td>' in standings
