"""Two moves for one board at the same moment: one is played, the other is refused.

A mail's commands read without a lock and write in one short transaction that re-checks
the board's move count; the loser of a race starts over from a fresh read.
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.commands import CommandMail, Reply, handle
from pbm_emergo.commands.dispatcher import dispatch
from pbm_emergo.config import Config
from pbm_emergo.db import errors
from pbm_emergo.db.session import read_sessions

from .support import Mailer
from .test_move import notations


def mail(subject: str, n: int) -> CommandMail:
    return CommandMail("alice@example.org", subject, "", f"<race{n}@example.org>")


def test_a_move_planned_on_a_board_that_moved_on_is_not_stored(
    game: Mailer, db_sessions: sessionmaker[Session], db_config: Config
) -> None:
    reads = read_sessions(db_sessions)
    planned = []
    for n, move in enumerate(("e4", "c5")):
        with reads() as session:
            planned.append(
                dispatch(session, mail(f"emergo move 101 alice alicepw {move}", n), db_config,
                         game.now)
            )
    # Both were read as move 1 and both would tell the players so.
    for replies, _ in planned:
        assert [r.subject for r in replies] == ["Emergo Board 101 bob"] * 2
    with db_sessions.begin() as session:
        for change in planned[0][1]:
            change(session)
    with pytest.raises(errors.StaleMoveError), db_sessions.begin() as session:
        for change in planned[1][1]:
            change(session)
    assert notations(game) == ["e4"]
    # Started over from a fresh read, the second mail is refused with the board as it is.
    [refused] = handle(db_sessions, mail("emergo move 101 alice alicepw c5", 3), db_config,
                       game.now)
    assert refused.subject == "Emergo Board 101 Error"
    assert refused.body.startswith("It is not your turn on board 101: it is bob's.")
    assert notations(game) == ["e4"]


def test_two_moves_at_once_one_is_played_one_is_refused(
    game: Mailer, db_sessions: sessionmaker[Session], db_config: Config
) -> None:
    barrier = threading.Barrier(2)
    results: dict[str, list[Reply]] = {}

    def send(move: str, n: int) -> None:
        barrier.wait(10)
        results[move] = handle(
            db_sessions, mail(f"emergo move 101 alice alicepw {move}", n), db_config, game.now
        )

    threads = [threading.Thread(target=send, args=(m, n)) for n, m in enumerate(("e4", "c5"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not any(t.is_alive() for t in threads)
    [played] = notations(game)
    refused = "c5" if played == "e4" else "e4"
    assert [r.subject for r in results[played]] == ["Emergo Board 101 bob"] * 2
    [error] = results[refused]
    assert error.subject == "Emergo Board 101 Error"
    assert error.body.startswith("It is not your turn on board 101: it is bob's.")
