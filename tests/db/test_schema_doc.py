"""docs/schema.md: every table is documented and the example queries run on both databases."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import games, inbox, outbox, players
from pbm_emergo.db.models import Base
from pbm_emergo.db.session import PROJECT_ROOT
from tests.support.moves import play_stored

DOC = (PROJECT_ROOT / "docs" / "schema.md").read_text(encoding="utf-8")
QUERIES = re.findall(r"```sql\n(.*?)```", DOC, re.DOTALL)


def test_every_table_is_documented() -> None:
    documented = set(re.findall(r"^### (\w+):", DOC, re.MULTILINE))
    assert documented == set(Base.metadata.tables)


def test_example_queries_run(db_sessions: sessionmaker[Session], database_url: str) -> None:
    now = datetime.now(UTC)
    with db_sessions.begin() as session:
        alice = players.create_player(session, "alice", "pw", ["alice@example.org"], now)
        bob = players.create_player(session, "bob", "pw", [], now)
        board = games.create_board(session, alice, bob, now)
        move = str(games.current_position(board).legal_moves()[0])
        play_stored(session, board.number, move, alice, "good luck", now)
        inbound, _ = inbox.enqueue_inbound(session, b"x", "alice@example.org", ["p"], None, now)
        inbound.status, inbound.last_error = "dead", "boom"
        outbox.enqueue_outbound(session, "alice@example.org", b"y", now)
    assert len(QUERIES) >= 4
    results = []
    with db_sessions() as session:
        for query in QUERIES:
            if database_url.startswith("sqlite") and "INTERVAL" in query:
                query = query.replace(
                    "CURRENT_TIMESTAMP - INTERVAL '7 days'", "datetime('now', '-7 days')"
                )
            results.append(session.execute(text(query)).all())
    active, failed, moves, _waiting, mail = results
    assert [tuple(r)[:5] for r in active] == [(101, "alice", "bob", 1, "bob")]
    assert [r[0] for r in failed] == [f"in-{inbound.id}"]
    assert [(r[0], r[2], r[4]) for r in moves] == [(1, move, "good luck")]
    assert len(mail) == 2
