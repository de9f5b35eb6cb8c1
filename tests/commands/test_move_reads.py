"""What a move reads and writes: the queries its board's read finds needless are not run.

The board is read with facts beside it (an open vote, a subscription, counted wrong
passwords: see ``games.BoardFacts``); a move on a board without them reads its board and its
moves, and writes the board and the move, nothing else. A vote stored between the read and
the write makes the mail start over, so that the move drops it as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import Engine, event
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import CommandMail
from pbm_emergo.config import Config
from pbm_emergo.db import errors, games, players
from pbm_emergo.db.apply import apply
from pbm_emergo.db.session import read_sessions
from pbm_emergo.mail.commands import dispatch
from pbm_emergo.mail.worker import answer
from tests.support.mailer import Mailer

from .support import notations


@contextmanager
def statements(engine: Engine) -> Iterator[list[str]]:
    """The SQL statements run on ``engine`` meanwhile (their first words, upper case)."""
    seen: list[str] = []

    def record(conn: object, cursor: object, statement: str, *args: object) -> None:
        seen.append(" ".join(statement.split()).upper())

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def selecting(seen: list[str], table: str) -> list[str]:
    """The SELECTs whose first column is of ``table``."""
    return [s for s in seen if s.startswith(f"SELECT {table.upper()}.")]


def test_a_plain_move_reads_its_board_and_moves_and_writes_the_move(
    game: Mailer, db_engine: Engine
) -> None:
    game.send("emergo move 101 alice alicepw e4", sender="alice@example.org")
    with statements(db_engine) as seen:
        replies = game.send("emergo move 101 bob bobpw c5#2", sender="bob@example.org")
    assert [r.subject for r in replies] == ["Emergo Board 101 alice"] * 2
    assert notations(game) == ["e4", "c5"]
    # (Which words of the command are userids: the listener finds that for the worker.)
    selects = [
        s for s in seen if s.startswith("SELECT") and not s.startswith("SELECT PLAYERS.USERID_KEY")
    ]
    # The board (with its players, their addresses and the facts), then its moves.
    assert len(selects) == 2, selects
    assert selecting(seen, "boards") and selecting(seen, "moves")
    assert not [s for s in seen if s.startswith("DELETE")]
    assert len([s for s in seen if s.startswith("UPDATE BOARDS")]) == 1
    assert len([s for s in seen if s.startswith("INSERT INTO MOVES")]) == 1


def test_with_votes_failures_and_subscribers_the_move_reads_them(
    game: Mailer, db_engine: Engine
) -> None:
    game.signup("carol", "carolpw", "carol@example.org")
    game.send("emergo subscribe 101 carol carolpw", sender="carol@example.org")
    game.send("emergo move 101 alice alicepw e4", sender="alice@example.org")
    game.send("emergo move 101 bob bobpw propose", sender="bob@example.org")
    # (Proven mail: only its wrong passwords are counted for bob's own address.)
    game.send("emergo move 101 bob wrong c5", sender="bob@example.org", sender_auth="pass")
    with statements(db_engine) as seen:
        replies = game.send(
            "emergo move 101 bob bobpw c5", sender="bob@example.org", sender_auth="pass"
        )
    assert sorted(r.to for r in replies) == [
        "alice@example.org", "bob@example.org", "carol@example.org"
    ]
    assert selecting(seen, "votes") and selecting(seen, "login_failures")
    assert selecting(seen, "players")  # the subscribers
    assert [s for s in seen if s.startswith("DELETE FROM VOTES")]
    # bob's own draw offer stands after his move; his wrong password is forgotten.
    with game.factory() as session:
        bob = players.find_player(session, "bob")
        assert bob is not None
        assert [(v.kind, v.player_id) for v in games.votes_of(session, 101)] == [("draw", bob.id)]
        assert players.login_failures_of(session, bob.id) == {}
    replies = game.send("emergo move 101 alice alicepw e5", sender="alice@example.org")
    assert "offers a draw" not in replies[0].body
    with game.factory() as session:
        assert games.votes_of(session, 101) == []


def test_a_vote_stored_after_the_move_was_read_makes_it_start_over(
    game: Mailer, db_sessions: sessionmaker[Session], db_config: Config
) -> None:
    game.send("emergo move 101 alice alicepw e4", sender="alice@example.org")
    bobs_move = CommandMail("bob@example.org", "emergo move 101 bob bobpw c5", "", "<b1@x>")
    with read_sessions(db_sessions)() as session:
        _, writes = dispatch(session, bobs_move, db_config, game.now)
    # Meanwhile alice offers a draw.
    game.send("emergo move 101 alice alicepw propose", sender="alice@example.org")
    with pytest.raises(errors.StaleMoveError), db_sessions.begin() as session:
        apply(session, writes)
    assert notations(game) == ["e4"]
    # Started over, the move is played and answers "no" to the offer, as it always did.
    replies = answer(db_sessions, bobs_move, db_config, game.now)
    assert [r.subject for r in replies] == ["Emergo Board 101 alice"] * 2
    assert "offers a draw" not in replies[0].body
    assert notations(game) == ["e4", "c5"]
    with db_sessions() as session:
        assert games.votes_of(session, 101) == []
