"""From SQLite to PostgreSQL (``pbm-emergo admin copy-to``): a server on SQLite with finished
and running games, both mail queues, ratings, an event under way, a password reset, a
block, a note and a submitted move is copied into PostgreSQL (every table, as many rows),
and a server started on the copy goes on where the first stopped, with no difference a
player can see."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.cli import main
from pbm_emergo.config import Config
from pbm_emergo.db import players
from pbm_emergo.db.models import (
    Base,
    Block,
    Board,
    Event,
    EventEntry,
    EventPairing,
    EventRound,
    GameNote,
    PasswordReset,
    SubmittedMove,
)
from pbm_emergo.db.session import create_engine_for
from pbm_emergo.db.types import utcnow
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support.clock import Clock
from tests.support.mail import SERVER_ADDRESS, Relay, free_port
from tests.support.moves import RATED_OPENING
from tests.support.post import ALICE, BOB, Post, challenge, subjects, text
from tests.support.postgres import PostgresDatabases

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    # The source is the embedded default: SQLite.
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]

CAROL = "carol@example.org"


@pytest.fixture
def start_server(
    clock: Clock, quick_argon2: None, postgres_database_url: str
) -> Iterator[Callable[[Config], Post]]:
    """A mail server on the database of a Config, with its own relay (stopped at the end,
    before the PostgreSQL database is dropped)."""
    started: list[tuple[MailServer, Relay]] = []
    engines = []

    def start(config: Config) -> Post:
        relay = Relay()
        relay.start()
        config = dataclasses.replace(
            config,
            address=SERVER_ADDRESS,
            outbound=relay.url,
            smtp_port=free_port(),
            reply_limit=100_000,
        )
        engine = create_engine_for(str(config.database_url))
        engines.append(engine)
        sessions = sessionmaker(engine, expire_on_commit=False)
        post = Post(None, relay, sessions)  # type: ignore[arg-type]
        server = MailServer(
            config, sessions,
            backoff=Backoff(base=timedelta(milliseconds=100), cap=timedelta(seconds=1)),
            poll_seconds=0.2, scheduler_seconds=0.2, on_scheduled=post.scheduler_ran, clock=clock,
        )  # fmt: skip
        post.server = server
        server.start()
        started.append((server, relay))
        return post

    yield start
    for server, relay in started:
        server.stop()
        relay.stop()
    for engine in engines:
        engine.dispose()


def _move(post: Post, board: int, ply: int) -> None:
    userid = "bob" if ply % 2 else "alice"
    mails = post.send(f"emergo move {board} {userid} {userid}-pw1 {RATED_OPENING[ply]}",
                      f"{userid}@example.org")  # fmt: skip
    assert mails and not any("Error" in str(m["Subject"]) for m in mails), subjects(mails)


def _copy_to(config: Config, target: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["admin", "copy-to", target, "--database-url", str(config.database_url),
                   "--data-dir", str(config.data_dir)])  # fmt: skip
    out = capsys.readouterr()
    return status, out.out + out.err


def _counts(sessions: sessionmaker[Session]) -> dict[str, int]:
    """The rows of every table."""
    with sessions() as session:
        return {
            table.name: session.scalar(select(func.count()).select_from(table)) or 0
            for table in Base.metadata.sorted_tables
        }


# The tables of the later parts, each given rows below before the copy.
LATER_TABLES = (Event, EventEntry, EventRound, EventPairing, PasswordReset, Block, GameNote,
                SubmittedMove)  # fmt: skip


def _more_of_everything(post: Post, running: int) -> None:
    """Rows in the later tables, by the players' mail: a private event that starts (its
    entries, round and pairing, and its board), a password reset, a block, a note and a
    submitted move."""
    [opened] = post.send("emergo event create pals alice alice-pw1 round-robin pa1s "
                         "--max-players=2", ALICE)  # fmt: skip
    assert "is open" in text(opened), text(opened)
    for userid, address in (("alice", ALICE), ("bob", BOB)):
        [joined] = post.send(f"emergo join pals {userid} {userid}-pw1 pa1s", address)
        assert f"{userid} is in the event pals" in text(joined), text(joined)
    post.wait_for_scheduler()  # full: the event starts, its board opens
    # The code to the registered address, and the same answer to the sender as to anyone.
    assert len(post.send("forgot carol", CAROL)) == 2
    post.one("block carol carol-pw1 bob", CAROL)
    post.one(f"emergo note {running} alice alice-pw1 keep the centre", ALICE)
    [submitted] = post.send(f"emergo submit {running} bob bob-pw1 {RATED_OPENING[3]}", BOB)
    assert "confirm" in text(submitted), text(submitted)


def test_a_server_goes_on_from_the_copy_on_postgresql(
    make_post: Callable[..., Post],
    start_server: Callable[[Config], Post],
    db_config: Config,
    postgres_database_url: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    post = make_post()  # alice and bob signed up, on SQLite
    post.signup("carol", "carol-pw1", CAROL)
    finished = challenge(post)
    for ply in range(len(RATED_OPENING)):
        _move(post, finished, ply)
    over = post.send(f"emergo resign {finished} bob bob-pw1", BOB)
    assert "Rating changes: alice 1600 -> 1762" in text(over[0])
    running = challenge(post)
    for ply in range(3):  # alice, bob, alice: bob to move
        _move(post, running, ply)
    _more_of_everything(post, running)
    standings = text(post.one("emergo standings", CAROL))
    show = text(post.one(f"emergo show {running}", CAROL))
    before = _counts(post.sessions)
    for table in ("inbound_messages", "outbound_messages", "outbound_texts",
                  *(model.__tablename__ for model in LATER_TABLES)):  # fmt: skip
        assert before[table], table
    post.server.stop()  # as docs/operations.md says: stop the server, then copy

    target_commits: list[str] = []

    def target_commit(connection: Any) -> None:
        if connection.dialect.name == "postgresql":
            found = connection.exec_driver_sql("SHOW synchronous_commit").scalar()
            target_commits.append(found)

    event.listen(Engine, "commit", target_commit)
    try:
        status, output = _copy_to(db_config, postgres_database_url, capsys)
    finally:
        event.remove(Engine, "commit", target_commit)
    assert status == 0, output
    assert target_commits == ["on"]  # said copied, on the disk
    assert "row counts and checksums verified" in output
    assert "PBM_EMERGO_DATABASE_URL=postgresql+psycopg://" in output

    moved = start_server(dataclasses.replace(db_config, database_url=postgres_database_url))
    moved.count = post.count  # the players' next mails have new Message-IDs
    assert _counts(moved.sessions) == before
    assert text(moved.one("emergo standings", CAROL)) == standings
    assert text(moved.one(f"emergo show {running}", CAROL)) == show
    _move(moved, running, 3)  # bob's move on the running game is accepted
    assert moved.board(running).ply == 4
    # New rows get new ids past the copied ones (the sequences were reset): a new board
    # and a new player.
    with moved.sessions() as session:
        last_board = session.scalar(select(func.max(Board.number)))
    assert last_board is not None and last_board > running  # the event's
    assert challenge(moved) == last_board + 1
    moved.signup("dave", "dave-pw1", "dave@example.org")


def test_copy_to_refuses_a_target_that_is_not_empty_or_not_migrated(
    db_config: Config,
    db_sessions: sessionmaker[Session],
    postgres_database_url: str,
    _postgres_databases: PostgresDatabases,
    capsys: pytest.CaptureFixture[str],
    quick_argon2: None,
) -> None:
    with db_sessions.begin() as session:
        players.create_player(session, "erin", "erin-pw1", ["erin@example.org"], utcnow())
    unmigrated = _postgres_databases.url(_postgres_databases.create())
    status, output = _copy_to(db_config, unmigrated, capsys)
    assert status == 1
    assert "migrate it first with `pbm-emergo db upgrade --database-url TARGET`" in output

    assert _copy_to(db_config, postgres_database_url, capsys)[0] == 0
    status, output = _copy_to(db_config, postgres_database_url, capsys)
    assert status == 1
    assert "the target database is not empty" in output

    status, output = _copy_to(db_config, str(db_config.database_url), capsys)
    assert status == 1
    assert "is not a PostgreSQL database URL" in output
