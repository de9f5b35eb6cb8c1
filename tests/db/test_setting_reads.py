"""``db.reads.turns`` and ``db.reads.events`` on both databases: where a player is to move
(switching autoplay on), an event as joining and withdrawing read it, and an event with its
entrants and pairings as its table and the scheduler read them, as values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import events, games, players
from pbm_emergo.db.models import BLACK, BOARD_ACTIVE, BOARD_FINISHED, WHITE, Board
from pbm_emergo.db.reads.events import (
    EntrantRead,
    EntryRead,
    PairingRead,
    active_boards_in,
    entrants_of,
    entries_of,
    event_by_id,
    events_with_status,
    pairings_of,
    read_event,
)
from pbm_emergo.db.reads.turns import boards_to_move
from pbm_emergo.game.event_changes import PairingPlanned
from pbm_emergo.game.tournaments import BYE, EVENT_OPEN, EVENT_RUNNING, ROUND_ROBIN, SWISS
from pbm_emergo.rules import Position

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def _ids(session: Session) -> tuple[int, int, int]:
    made = [
        players.create_player(
            session, userid, None, [f"{userid}@example.org"], NOW - 40 * DAY,
            password_hash="hash",
        )
        for userid in ("alice", "bob", "carol")
    ]
    return made[0].id, made[1].id, made[2].id


def test_the_boards_where_a_player_is_to_move(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob, carol = _ids(session)
        games.create_board(session, alice, bob, NOW, number=101)  # alice (white) to move
        games.create_board(session, bob, alice, NOW, number=102)  # bob to move
        games.create_board(session, carol, alice, NOW, number=103)
        games.create_board(session, alice, carol, NOW, number=104)
        session.execute(update(Board).where(Board.number == 103).values(to_move=BLACK))
        session.execute(
            update(Board).where(Board.number == 104).values(status=BOARD_FINISHED)
        )
    with db_sessions() as session:
        turns = boards_to_move(session, alice)
        assert [t.number for t in turns] == [101, 103]
        assert turns[0].position == Position()
        assert [t.number for t in boards_to_move(session, bob)] == [102]


def test_an_event_its_entries_and_a_players_boards_in_it(
    db_sessions: sessionmaker[Session],
) -> None:
    with db_sessions.begin() as session:
        alice, bob, carol = _ids(session)
        event = events.create_event(
            session, "Autumn", ROUND_ROBIN, NOW, max_players=4, nag_days=3
        )
        for pid in (carol, alice, bob):
            events.add_entry(session, event.id, pid, NOW, max_players=4)
        games.create_board(session, alice, bob, NOW, number=101, event_id=event.id)
        games.create_board(session, carol, alice, NOW, number=102, event_id=event.id)
        games.create_board(session, bob, carol, NOW, number=103, event_id=event.id)
        events.open_round(
            session, event.id, 1, NOW,
            [PairingPlanned(carol, alice, 102), PairingPlanned(bob, carol, 103, game=2)],
            expected=0,
        )
        events.open_round(
            session, event.id, 2, NOW, [PairingPlanned(alice, bob, 101)], expected=1
        )
        events.set_status(session, event.id, EVENT_OPEN, EVENT_RUNNING, NOW)
        events.withdraw_entry(session, event.id, bob, NOW)
        event_id = event.id
    with db_sessions() as session:
        found = read_event(session, "autumn")
        assert found is not None
        assert (found.id, found.name, found.status) == (event_id, "Autumn", EVENT_RUNNING)
        assert (found.max_players, found.nag_days, found.join_password_hash) == (4, 3, None)
        assert read_event(session, "winter") is None
        assert entries_of(session, event_id) == [
            EntryRead(carol, None), EntryRead(alice, None), EntryRead(bob, NOW)
        ]
        assert active_boards_in(session, event_id, alice) == [102, 101]
        assert active_boards_in(session, event_id, bob) == [103, 101]


def test_an_event_its_entrants_and_its_pairings_as_values(
    db_sessions: sessionmaker[Session],
) -> None:
    with db_sessions.begin() as session:
        alice, bob, carol = _ids(session)
        dave = players.create_player(session, "dave", None, [], NOW, password_hash="hash").id
        event = events.create_event(
            session, "Autumn", ROUND_ROBIN, NOW, max_players=4, rounds=2, rated=False
        )
        events.create_event(session, "Winter", SWISS, NOW)
        for pid in (carol, alice, bob, dave):
            events.add_entry(session, event.id, pid, NOW, max_players=4)
        events.set_divisions(session, event.id, [(bob, 2)])
        games.create_board(session, alice, bob, NOW, number=101, event_id=event.id)
        games.create_board(session, carol, alice, NOW, number=102, event_id=event.id)
        session.execute(
            update(Board).where(Board.number == 101).values(status=BOARD_FINISHED, winner=WHITE)
        )
        events.open_round(
            session, event.id, 1, NOW,
            [PairingPlanned(carol, alice, 102), PairingPlanned(alice, bob, 101, game=2),
             PairingPlanned(bob, None, None, BYE)],
            expected=0,
        )  # fmt: skip
        events.set_status(session, event.id, EVENT_OPEN, EVENT_RUNNING, NOW)
        events.withdraw_entry(session, event.id, bob, NOW)
        players.set_language(session, carol, "nl")
        event_id = event.id
    with db_sessions() as session:
        found = event_by_id(session, event_id)
        assert found is not None and found == read_event(session, "AUTUMN")
        assert (found.status, found.current_round, found.rounds, found.rated) == (
            EVENT_RUNNING, 1, 2, False
        )
        assert event_by_id(session, event_id + 100) is None
        assert [e.name for e in events_with_status(session, (EVENT_OPEN, EVENT_RUNNING))] == [
            "Autumn", "Winter"
        ]
        assert [e.name for e in events_with_status(session, (EVENT_RUNNING,))] == ["Autumn"]
        entrants = entrants_of(session, event_id)
        assert [(e.userid, e.seed, e.division, e.language, e.address) for e in entrants] == [
            ("carol", 1, 1, "nl", "carol@example.org"), ("alice", 2, 1, None, "alice@example.org"),
            ("bob", 3, 2, None, "bob@example.org"), ("dave", 4, 1, None, None),
        ]
        assert entrants[1] == EntrantRead(
            alice, "alice", "alice", entrants[1].rating, None, "alice@example.org", 2, 1, None,
        )  # fmt: skip
        assert entrants[2].withdrawn_at == NOW
        assert [p[1:] for p in (
            (p.id, p.round_number, p.game, p.white_id, p.black_id, p.board_number, p.result,
             p.board_status, p.board_winner)
            for p in pairings_of(session, event_id)
        )] == [
            (1, 1, carol, alice, 102, None, BOARD_ACTIVE, None),
            (1, 1, bob, None, None, BYE, None, None),
            (1, 2, alice, bob, 101, None, BOARD_FINISHED, WHITE),
        ]  # fmt: skip
        assert all(isinstance(p, PairingRead) for p in pairings_of(session, event_id))
