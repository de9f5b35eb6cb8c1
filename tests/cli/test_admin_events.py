"""``pbm-emergo admin event create|start|cancel|show`` and ``admin events`` against real
databases (both backends): terms checked, the list in a table and in JSON, an event started
by the operator (its first round's boards and mails in the outbox), and cancelled."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.cli import main
from pbm_emergo.cli.admin import AdminError, parse_when
from pbm_emergo.db import events
from pbm_emergo.db.models import Board, OutboundMessage, Player
from pbm_emergo.db.players import create_player
from pbm_emergo.db.types import utcnow

pytestmark = pytest.mark.usefixtures("quick_argon2")

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def admin(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> tuple[int, str, str]:
    status = main(["admin", *args, "--database-url", url])
    out, err = capsys.readouterr()
    return status, out, err


def test_when_an_event_starts() -> None:
    assert parse_when(None, NOW) is None
    assert parse_when("now", NOW) == NOW
    assert parse_when("+2d", NOW) == NOW + timedelta(days=2)
    assert parse_when("+5h", NOW) == NOW + timedelta(hours=5)
    assert parse_when("2026-12-01T18:30", NOW) == datetime(2026, 12, 1, 18, 30, tzinfo=UTC)
    with pytest.raises(AdminError):
        parse_when("soon", NOW)


def test_create_list_show_start_cancel(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    status, out, _ = admin(
        capsys, database_url, "event", "create", "autumn", "--format", "round-robin",
        "--max-players", "4", "--nagtime", "3", "--forfeittime", "9", "--rated", "no",
    )  # fmt: skip
    assert status == 0 and "created the event autumn" in out
    # A taken name, a bad clock and a bad name change nothing.
    status, _, err = admin(capsys, database_url, "event", "create", "AUTUMN", "--format", "swiss")
    assert status == 1 and "There is already an event called AUTUMN" in err
    status, _, err = admin(
        capsys, database_url, "event", "create", "x2", "--format", "swiss",
        "--nagtime", "9", "--forfeittime", "5",
    )  # fmt: skip
    assert status == 1 and "--nagtime" in err
    status, _, err = admin(capsys, database_url, "event", "create", "a b", "--format", "swiss")
    assert status == 1 and "cannot be an event's name" in err
    status, out, _ = admin(capsys, database_url, "events", "--json")
    [listed] = json.loads(out)
    assert listed["name"] == "autumn" and listed["players"] == 0 and listed["rated"] is False
    # Three players, started by the operator: a round robin of three has a bye a round.
    with db_sessions.begin() as session:
        for userid in ("alice", "bob", "carol"):
            create_player(session, userid, "pw", [f"{userid}@example.org"], utcnow())
    with db_sessions.begin() as session:
        event = events.by_name(session, "autumn")
        assert event is not None
        for userid in ("alice", "bob", "carol"):
            player_id = session.scalar(select(Player.id).where(Player.userid == userid))
            assert player_id is not None
            events.add_entry(session, event.id, player_id, utcnow(), max_players=4)
    status, out, _ = admin(capsys, database_url, "event", "start", "autumn")
    assert status == 0 and "the event autumn is running" in out
    assert "2 mail(s) queued" in out  # one board, its two players
    with db_sessions() as session:
        boards = session.scalars(select(Board).where(Board.event_id.is_not(None))).all()
        mails = session.scalars(select(OutboundMessage.recipient)).all()
    assert len(boards) == 1 and boards[0].rated is False and boards[0].nag_days == 3
    assert len(mails) == 2
    status, out, _ = admin(capsys, database_url, "event", "show", "autumn")
    assert status == 0 and "round 1 of 3" in out and "(bye)" in out
    status, out, _ = admin(capsys, database_url, "event", "cancel", "autumn")
    assert status == 0 and "cancelled the event autumn" in out
    status, out, _ = admin(capsys, database_url, "events")
    assert out.strip() == "(none)"
    status, _, err = admin(capsys, database_url, "event", "start", "autumn")
    assert status == 1 and "cancelled" in err
