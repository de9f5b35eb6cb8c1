"""The value reads of who watches a board (``reads.watchers``: its subscribers, those who
asked for its final board mail, the board a subscription is about) and of the accounts a
``message`` names (``read_accounts``), on both databases: one statement each, the players'
first address as ``Player.addresses`` orders them."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine, update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import games, players, spectators
from pbm_emergo.db.models import BOARD_FINISHED, Board, Player, PlayerAddress
from pbm_emergo.db.reads.accounts import read_account, read_accounts
from pbm_emergo.db.reads.watchers import (
    WatchedBoard,
    Watcher,
    notified,
    subscribers,
    watched_board,
)
from tests.support.statements import recorded_statements

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def _players(session: Session) -> dict[str, int]:
    made = {
        "alice": ["alice@example.org"],
        "bob": ["bob@example.org"],
        # Two addresses, the second moved first: board mails go to it.
        "Carol": ["carol@old.example", "carol@new.example"],
        "dora": [],  # no address yet
        "erin": ["erin@example.org"],
    }
    ids = {
        userid: players.create_player(session, userid, f"{userid}-pw", addresses, NOW).id
        for userid, addresses in made.items()
    }
    session.execute(
        update(PlayerAddress)
        .where(PlayerAddress.address == "carol@old.example")
        .values(position=5)
    )
    session.execute(update(Player).where(Player.id == ids["Carol"]).values(board_style="list"))
    session.execute(update(Player).where(Player.id == ids["erin"]).values(language="de"))
    games.create_board(session, ids["alice"], ids["bob"], NOW, number=101)
    games.create_board(session, ids["bob"], ids["alice"], NOW, number=102)
    session.execute(
        update(Board).where(Board.number == 102).values(status=BOARD_FINISHED, to_move=None)
    )
    return ids


def test_a_boards_subscribers_and_notified_as_values(
    db_sessions: sessionmaker[Session], db_engine: Engine
) -> None:
    with db_sessions.begin() as session:
        ids = _players(session)
        # erin both to board 101 and to every board: read once.
        spectators.add_subscription(session, ids["erin"], 101, NOW)
        spectators.add_subscription(session, ids["erin"], None, NOW)
        spectators.add_subscription(session, ids["Carol"], 101, NOW)
        spectators.add_subscription(session, ids["dora"], None, NOW)
        spectators.add_subscription(session, ids["alice"], 102, NOW)
        spectators.add_notification(session, ids["bob"], None, NOW)
        spectators.add_notification(session, ids["erin"], 101, NOW)
        spectators.add_notification(session, ids["erin"], None, NOW)
    carol = Watcher(ids["Carol"], "Carol", "carol@new.example", "list", None)
    dora = Watcher(ids["dora"], "dora", None, "diagram", None)
    erin = Watcher(ids["erin"], "erin", "erin@example.org", "diagram", "de")
    bob = Watcher(ids["bob"], "bob", "bob@example.org", "diagram", None)
    with db_sessions() as session:
        with recorded_statements(db_engine) as seen:
            # By userid; erin once.
            assert subscribers(session, 101) == [carol, dora, erin]
        assert len(seen) == 1
        with recorded_statements(db_engine) as seen:
            assert notified(session, 101) == [bob, erin]
        assert len(seen) == 1
        assert [w.userid for w in subscribers(session, 102)] == ["alice", "dora", "erin"]
        assert [w.userid for w in notified(session, 102)] == ["bob", "erin"]
        players.sign_off(session, ids["erin"], NOW)
        assert subscribers(session, 101) == [carol, dora]
        assert notified(session, 101) == [bob]


def test_the_board_a_subscription_is_about(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        ids = _players(session)
    with db_sessions() as session:
        board = watched_board(session, 101)
        assert board == WatchedBoard(101, True, ids["alice"], ids["bob"])
        assert board.plays_on(ids["bob"]) and not board.plays_on(ids["erin"])
        finished = watched_board(session, 102)
        assert finished is not None and not finished.active
        assert watched_board(session, 999) is None


def test_the_accounts_a_message_names(
    db_sessions: sessionmaker[Session], db_engine: Engine
) -> None:
    with db_sessions.begin() as session:
        ids = _players(session)
        players.sign_off(session, ids["bob"], NOW)
    with db_sessions() as session:
        with recorded_statements(db_engine) as seen:
            found = read_accounts(session, ["CAROL", "bob", "dora", "nobody", "carol"])
        assert len(seen) == 1
        assert sorted(found) == ["bob", "carol", "dora"]
        assert found["carol"] == read_account(session, "carol")
        assert found["carol"].primary_address == "carol@new.example"
        assert found["carol"].addresses == ("carol@new.example", "carol@old.example")
        assert not found["bob"].active
        assert found["dora"].primary_address is None
        assert read_accounts(session, []) == {}
