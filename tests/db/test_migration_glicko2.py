"""The Glicko-2 migration re-rates the finished rated games: every player from the start
values, the games in the order they finished, as the server rates a game (SQLite and
PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import Board, Player, RatingChange
from pbm_emergo.db.session import create_engine_for, downgrade_to, upgrade_to_head
from pbm_emergo.game.ratings import Standing
from pbm_emergo.ratings import game_rating

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def _board(number: int, white: Player, black: Player, **fields: object) -> Board:
    values: dict[str, object] = dict(
        status="finished",
        rated=True,
        winner=None,
        outcome_reason="resigned",
        ply=8,
        position="-",
        created_at=START,
        finished_at=START,
    )
    values.update(fields)
    return Board(number=number, white_player_id=white.id, black_player_id=black.id, **values)


def test_the_migration_replays_the_finished_rated_games_in_order(
    empty_database_url: str,
) -> None:
    upgrade_to_head(url=empty_database_url)
    engine = create_engine_for(empty_database_url)
    try:
        with Session(engine) as session, session.begin():
            alice, bob, carol, dave = (
                Player(userid=u, userid_key=u, password_hash="x", rating=r, rated_games=n)
                for u, r, n in (("alice", 1700, 3), ("bob", 1500, 3), ("carol", 1620, 2),
                                ("dave", 1555, 0))
            )  # fmt: skip
            session.add_all([alice, bob, carol, dave])
            session.flush()
            # Finished out of board order: 103 first, then 101, then 102.
            session.add_all([
                _board(101, alice, bob, winner="white", finished_at=START + timedelta(days=2)),
                _board(102, bob, carol, finished_at=START + timedelta(days=3)),
                _board(103, carol, alice, winner="black", finished_at=START + timedelta(days=1)),
                _board(104, alice, dave, rated=False, winner="white"),
                _board(105, dave, bob, status="active", finished_at=None),
            ])  # fmt: skip
            session.flush()
            # The Elo history, to be replaced.
            session.add(RatingChange(player_id=alice.id, board_number=101, rating_before=1600,
                                     rating_after=1700, created_at=START))  # fmt: skip
        downgrade_to("0014_clock_timezone", url=empty_database_url)
        upgrade_to_head(url=empty_database_url)

        fresh = Standing(1600, 0)
        a, b, c = fresh, fresh, fresh
        first = game_rating(c, a, "black")  # board 103: alice (Eks) beat carol
        c, a = c.after(first, white=True), a.after(first, white=False)
        second = game_rating(a, b, "white")  # board 101: alice beat bob
        a, b = a.after(second, white=True), b.after(second, white=False)
        third = game_rating(b, c, None)  # board 102: a draw
        b, c = b.after(third, white=True), c.after(third, white=False)

        with Session(engine) as session:
            found = {p.userid: p for p in session.scalars(select(Player))}
            for userid, expected in (("alice", a), ("bob", b), ("carol", c)):
                player = found[userid]
                assert (player.rating, player.rated_games) == (expected.rating, 2)
                assert player.deviation == expected.deviation
                assert player.volatility == expected.volatility
            dave = found["dave"]
            assert (dave.rating, dave.rated_games, dave.deviation) == (1600, 0, 350.0)
            boards = session.scalars(select(RatingChange.board_number).order_by(RatingChange.id))
            assert list(boards) == [103, 103, 101, 101, 102, 102]
            board = session.get(Board, 101)
            assert board is not None
            assert (board.white_rating_change, board.black_rating_change) == (
                second.white_change,
                second.black_change,
            )
            assert a.deviation < 350 and a.rating > 1600 > b.rating
    finally:
        engine.dispose()
