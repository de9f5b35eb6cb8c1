"""Two moves for one board processed at the same moment: one is played, one is refused."""

from __future__ import annotations

import threading
import time

from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.commands import CommandMail, Reply, process
from pbm_emergo.config import Config

from .support import Mailer
from .test_move import notations


def mail(subject: str, n: int) -> CommandMail:
    return CommandMail("alice@example.org", subject, "", f"<race{n}@example.org>")


def waiting_for_a_lock(factory: sessionmaker[Session]) -> bool:
    with factory() as session:
        count = session.execute(text("SELECT count(*) FROM pg_locks WHERE NOT granted")).scalar()
    return bool(count)


def test_two_moves_at_once_one_is_refused(
    game: Mailer, db_sessions: sessionmaker[Session], db_config: Config
) -> None:
    postgres = db_sessions.kw["bind"].dialect.name == "postgresql"
    second: list[Reply] = []

    def other_mail() -> None:
        with db_sessions.begin() as session:
            second.extend(
                process(session, mail("emergo move 101 alice alicepw c5", 2), db_config, game.now)
            )

    with db_sessions.begin() as session:
        first = process(session, mail("emergo move 101 alice alicepw e4", 1), db_config, game.now)
        thread = threading.Thread(target=other_mail)
        thread.start()
        if postgres:
            # The other transaction has read the board and now waits for our row lock.
            deadline = time.monotonic() + 20
            while not waiting_for_a_lock(db_sessions):
                assert time.monotonic() < deadline, "the second move never waited for the lock"
                time.sleep(0.02)
    thread.join(30)
    assert not thread.is_alive()
    assert [r.subject for r in first] == ["Emergo Board 101 bob"] * 2
    [refused] = second
    assert refused.subject == "Emergo Board 101 Error"
    if postgres:
        assert refused.body.startswith("Board 101 has changed: your move would have been move 1")
    else:  # SQLite queues writers at BEGIN: the second mail sees the first move.
        assert refused.body.startswith("It is not your turn on board 101: it is bob's.")
    assert notations(game) == ["e4"]
