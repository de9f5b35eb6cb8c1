"""The board's web page says when the reminder and the loss on time come, in the time zone
of the player to move (SQLite and PostgreSQL)."""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.web.app import create_app
from tests.support.mailer import ADDRESSES, PASSWORDS, Mailer


def test_the_board_page_shows_the_deadlines_of_the_player_to_move(
    game: Mailer, db_sessions: sessionmaker[Session]
) -> None:
    [answer] = game.send(
        f"timezone alice {PASSWORDS['alice']} Asia/Tokyo", sender=ADDRESSES["alice"]
    )
    assert "alice reads times in Asia/Tokyo" in answer.body
    with TestClient(create_app(db_sessions)) as client:
        page = client.get("/boards/101").text
        assert '<p class="deadlines">If alice does not move: a reminder at ' in page
        assert "JST (Asia/Tokyo), and the game is lost on time from " in page
        game.move(101, "alice", "e4")
        page = client.get("/boards/101").text
        assert "If bob does not move: a reminder at " in page and " UTC, and the game" in page
