"""The analyses' runner in the robots' process: requests taken in turn by player (not in
the order they came), and one analysis answering every request waiting for the same
board."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from sqlalchemy import select

from pbm_emergo.app.analysis import AnalysisRunner, ohs_men
from pbm_emergo.db import analyses, games
from pbm_emergo.db import players as players_db
from pbm_emergo.db.models import AnalysisRequest, OutboundMessage
from pbm_emergo.robot.search import WIN

from .conftest import Game


def test_requests_are_taken_in_turn_by_player_and_shared_by_board(game: Game) -> None:
    game.config = dataclasses.replace(game.config, analysis_seconds_per_move=0.01)
    with game.factory.begin() as session:
        alice, bob, carol = (
            players_db.create_player(session, u, f"{u}pw", [f"{u}@example.org"], game.now)
            for u in ("alice", "bob", "carol")
        )
        first = games.create_board(session, alice, bob, game.now).number
        second = games.create_board(session, alice, carol, game.now).number
        third = games.create_board(session, bob, carol, game.now).number
        # alice asks for two analyses before bob asks for one; carol asks for the third
        # board's while bob's request for it waits.
        for minutes, board, player in ((0, first, alice), (1, second, alice), (2, third, bob),
                                       (3, third, carol)):  # fmt: skip
            analyses.add_request(
                session, board, player.id, f"{player.userid}@example.org",
                game.now + timedelta(minutes=minutes), limit=3, since=game.now,
            )
    runner = AnalysisRunner(game.factory, game.config, clock=lambda: game.now)
    steps = 0
    while runner.step():
        steps += 1
        assert steps < 20
    # A board without moves is one step (no move to judge: stored at once); bob's
    # request comes before alice's second, and carol's is answered with bob's.
    assert steps == 3
    with game.factory() as session:
        sent = [
            (row.recipient, row.board_number)
            for row in session.scalars(select(OutboundMessage).order_by(OutboundMessage.id))
        ]
    assert sent == [("alice@example.org", first), ("bob@example.org", third),
                    ("carol@example.org", third), ("alice@example.org", second)]  # fmt: skip
    with game.factory() as session:
        rows = session.scalars(select(AnalysisRequest).order_by(AnalysisRequest.id)).all()
        assert [r.status for r in rows] == ["done"] * 4
        assert [r.report is not None for r in rows] == [True, True, True, False]
        assert analyses.stored_report(session, third) == rows[2].report


def test_the_values_are_from_ohs_side_as_on_the_web_graph() -> None:
    # The engine scores a move from its mover's side; the mail, like the graph, from Ohs's.
    assert (ohs_men(150, 0), ohs_men(150, 1)) == ("+1.50", "-1.50")
    assert (ohs_men(-40, 1), ohs_men(0, 1)) == ("+0.40", "+0.00")
    assert ohs_men(WIN - 3, 1) == "Eks wins by force"
    assert ohs_men(WIN - 3, 0) == "Ohs wins by force"
    assert ohs_men(-WIN + 3, 1) == "Ohs wins by force"
