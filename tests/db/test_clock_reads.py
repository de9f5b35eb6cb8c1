"""``db.reads.clocks`` on both databases: what the scheduler reads, as values, each in one
statement however many boards, players and addresses there are."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import games, players, vacations
from pbm_emergo.db.models import Board
from pbm_emergo.db.reads.clocks import EndedVacation, boards_to_check, ended_untold, state_of
from pbm_emergo.db.reads.snapshot import load_state
from tests.support.statements import recorded_statements

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def _ids(session: Session) -> tuple[int, int, int]:
    """alice (two addresses), bob (one), carol (none)."""
    made = [
        players.create_player(
            session, userid, None, addresses, NOW - 40 * DAY, password_hash="hash"
        )
        for userid, addresses in (
            ("alice", ["alice@example.org", "Alice@Work.example"]),
            ("bob", ["bob@example.org"]),
            ("carol", []),
        )
    ]
    return made[0].id, made[1].id, made[2].id


def test_the_boards_to_check_are_read_as_values_in_one_statement(
    db_sessions: sessionmaker[Session],
) -> None:
    with db_sessions.begin() as session:
        alice, bob, carol = _ids(session)
        games.create_board(session, alice, bob, NOW - 10 * DAY, number=101)  # idle for days
        games.create_board(session, bob, carol, NOW - DAY / 2, number=102)  # new: no look
        games.create_board(session, alice, carol, NOW - DAY / 2, number=103, total_days=20)
        games.create_board(session, carol, alice, NOW - 10 * DAY, number=104)
        games.create_board(session, bob, alice, NOW - DAY / 2, number=105, weekends_off=True)
        session.execute(update(Board).where(Board.number == 104).values(status="finished"))
    with db_sessions() as session, recorded_statements(session.get_bind()) as seen:
        boards = boards_to_check(session, NOW)
        assert len(seen) == 1
    assert [b.number for b in boards] == [101, 103, 105]
    first, timed, weekends = boards
    assert (first.white_id, first.black_id, first.to_move) == (alice, bob, "white")
    assert first.created_at == NOW - 10 * DAY and first.last_move_at is None
    assert (first.nag_days, first.forfeit_days, first.total_days) == (7, 28, None)
    # Every registered address, in order, on the account; the first one on the seat.
    assert first.account_of("white").addresses == ("alice@example.org", "Alice@Work.example")
    assert first.account_of("white").address_keys == {
        "alice@example.org", "alice@work.example"
    }
    assert first.seat_of("white").address == "alice@example.org"
    assert (first.seat_of("black").userid, first.account_of("black").userid) == ("bob", "bob")
    assert timed.total_days == 20
    assert (timed.seat_of("black").address, timed.account_of("black").addresses) == (None, ())
    assert weekends.weekends_off and weekends.seat_of("white").id == bob
    # A board's state, read only when asked for, is the one a board's object gives.
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None
        assert state_of(session, first) == load_state(session, board)


def test_no_board_to_check_is_no_board(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions() as session:
        assert boards_to_check(session, NOW) == []


def test_the_vacations_ended_untold_are_read_as_values_in_one_statement(
    db_sessions: sessionmaker[Session],
) -> None:
    with db_sessions.begin() as session:
        alice, bob, carol = _ids(session)
        vacations.start_vacation(session, alice, NOW - 5 * DAY, 3, expected=None)
        vacations.start_vacation(session, bob, NOW - 12 * DAY, 3, expected=None)  # long over
        vacations.start_vacation(session, carol, NOW - 3 * DAY, 1, expected=None)
    with db_sessions() as session, recorded_statements(session.get_bind()) as seen:
        ended = ended_untold(session, NOW)
        assert len(seen) == 1
    assert [(v.userid, v.ends_at, v.address) for v in ended] == [
        ("alice", NOW - 2 * DAY, "alice@example.org"),
        ("carol", NOW - 2 * DAY, None),
    ]
    told = ended[0]
    assert isinstance(told, EndedVacation)
    assert (told.player_id, told.vacation_until, told.timezone) == (alice, NOW - 2 * DAY, "UTC")
    with db_sessions.begin() as session:
        vacations.mark_end_told(session, told.id)
    with db_sessions() as session:
        assert [v.userid for v in ended_untold(session, NOW)] == ["carol"]
