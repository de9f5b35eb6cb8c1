"""The board's web page says when the reminder and the loss on time come, in the time zone
of the player to move (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime

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


def test_the_board_page_shows_an_open_offer_and_the_clocks_as_the_board_mail_does(
    mailer: Mailer, db_sessions: sessionmaker[Session]
) -> None:
    mailer.send("emergo challenge alice bob -totaltime=10")
    mailer.move(101, "alice", "e4")
    with TestClient(create_app(db_sessions)) as client:
        page = client.get("/boards/101").text
        assert '<p class="votes">' not in page
        # (The mailer's clock is not the page's: only the words are checked.)
        assert '<p class="clocks">Thinking time (10 days each): alice ' in page
        [mail, _] = mailer.move(101, "bob", "propose")
        assert "bob offers a draw; alice may answer with" in mail.body
        page = client.get("/boards/101").text
        # Said as the board mail's headline says it: how to answer is for alice, by mail.
        assert '<p class="votes">bob offers a draw.</p>' in page
        votes = client.get("/api/boards/101").json()["votes"]
        assert votes == [{"kind": "draw", "by": "bob", "ply": 1}]
        assert "PASSWORD" not in page
        # From the page's own time (the mailer keeps a clock of its own, days before it).
        mailer.now = max(mailer.now, datetime.now(UTC))
        mailer.send(f"vacation alice {PASSWORDS['alice']} 5", sender=ADDRESSES["alice"])
        page = client.get("/boards/101").text
        assert '<p class="vacations">alice is on vacation until ' in page
        # The board as of an earlier move has none of them.
        earlier = client.get("/boards/101?move=0").text
        assert '<p class="votes">' not in earlier and '<p class="clocks">' not in earlier
        assert '<p class="vacations">' not in earlier
        mailer.move(101, "alice", "undo")
        page = client.get("/boards/101").text
        assert '<p class="votes">alice asks to take back move 1.</p>' in page
        german = client.get("/boards/101?lang=de").text
        assert '<p class="votes">bob bietet Remis an.</p>' in german
