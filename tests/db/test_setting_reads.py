"""``db.reads.turns`` and ``db.reads.events`` on both databases: where a player is to move
(switching autoplay on), and an event as joining and withdrawing read it, as values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import events, games, players
from pbm_emergo.db.models import BLACK, BOARD_FINISHED, Board
from pbm_emergo.db.reads.events import (
    EntryRead,
    active_boards_in,
    entries_of,
    read_event,
)
from pbm_emergo.db.reads.turns import boards_to_move
from pbm_emergo.game.event_changes import PairingPlanned
from pbm_emergo.game.tournaments import EVENT_OPEN, EVENT_RUNNING, ROUND_ROBIN
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
