"""Two moves for one board at the same moment: one is played, the other is refused.

A mail's commands read without a lock and write in one short transaction that re-checks
the board's move count; the loser of a race starts over from a fresh read.
"""

from __future__ import annotations

import threading
from datetime import datetime

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.app.results import Write
from pbm_emergo.config import Config
from pbm_emergo.db import errors, games
from pbm_emergo.db import players as players_store
from pbm_emergo.db.apply import apply
from pbm_emergo.db.models import Board
from pbm_emergo.db.session import read_sessions
from pbm_emergo.mail.answering import OPTIMISTIC_ATTEMPTS
from pbm_emergo.mail.commands import CommandText, dispatch
from pbm_emergo.mail.worker import answer
from tests.support.mailer import Mailer

from .support import notations


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
        apply(session, planned[0][1])
    with pytest.raises(errors.StaleMoveError), db_sessions.begin() as session:
        apply(session, planned[1][1])
    assert notations(game) == ["e4"]
    # Started over from a fresh read, the second mail is refused with the board as it is.
    [refused] = answer(db_sessions, mail("emergo move 101 alice alicepw c5", 3), db_config,
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
        results[move] = answer(
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


class OtherWorker:
    """Another worker's challenges between bob and alice, each committing a board now (or,
    while a transaction holds the write lock or the counter, as soon as it can)."""

    def __init__(self, players: Mailer, db_sessions: sessionmaker[Session]) -> None:
        self.db_sessions = db_sessions
        self.now = players.now
        with db_sessions() as session:
            alice = players_store.find_player(session, "alice")
            bob = players_store.find_player(session, "bob")
            assert alice is not None and bob is not None
        self.alice, self.bob = alice.id, bob.id
        self.threads: list[threading.Thread] = []

    def create_a_board(self) -> None:
        def create() -> None:
            with self.db_sessions.begin() as session:
                games.create_board(session, self.bob, self.alice, self.now)

        worker = threading.Thread(target=create)
        worker.start()
        worker.join(2)  # it waits longer only while our transaction holds the lock
        self.threads.append(worker)

    def takes_each_number_read(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Take the next board number right after a challenge read it, every time."""
        read_number = games.last_board_number

        def read_then_lose_it(session: Session, *, lock: bool = False) -> int:
            number = read_number(session, lock=lock)
            self.create_a_board()
            return number

        monkeypatch.setattr(games, "last_board_number", read_then_lose_it)

    def boards(self) -> dict[int, tuple[int, int]]:
        """Every board's number and (white, black), once the other worker is done."""
        for worker in self.threads:
            worker.join(30)
        with self.db_sessions() as session:
            return {b.number: (b.white_player_id, b.black_player_id)
                    for b in session.scalars(select(Board))}


def challenge_board(replies: list[Reply]) -> int:
    [number] = {int(r.subject.split()[3]) for r in replies}
    assert [r.subject for r in replies] == [f"New Emergo Board {number} alice"] * 2
    return number


def test_a_mail_that_keeps_losing_its_race_runs_inside_its_write_transaction(
    players: Mailer, db_sessions: sessionmaker[Session], db_config: Config
) -> None:
    """A challenge whose board number another worker takes each time it is about to write:
    after OPTIMISTIC_ATTEMPTS tries it runs inside its write transaction, where nobody can
    take the number first, and gets it (instead of starting over until it gives up)."""
    other = OtherWorker(players, db_sessions)

    def another_worker_creates_a_board(
        session: Session, mail: CommandMail, config: Config, now: datetime,
        *, text: CommandText, in_order: bool = False,
        not_passwords: frozenset[str] = frozenset(),
    ) -> tuple[list[Reply], list[Write]]:
        # The commands have read and answered, before their write; while ours holds the
        # write transaction the other has to wait.
        ran = dispatch(session, mail, config, now, text=text, in_order=in_order)
        other.create_a_board()
        return ran

    mail = CommandMail("alice@example.org", "emergo challenge alice bob", "", "<race@x.org>")
    number = challenge_board(answer(db_sessions, mail, db_config, players.now,
                                    processor=another_worker_creates_a_board))
    boards = other.boards()
    assert len(other.threads) == OPTIMISTIC_ATTEMPTS + 1
    # The other workers' boards took 101, 102, 103 from under it; the fourth, created
    # while the challenge held its write transaction, came after it.
    assert number == 101 + OPTIMISTIC_ATTEMPTS
    assert boards[number] == (other.alice, other.bob)
    assert sorted(boards) == list(range(101, 101 + len(other.threads) + 1))
    assert all(boards[n] == (other.bob, other.alice) for n in boards if n != number)


def test_inside_its_write_transaction_a_challenge_keeps_the_number_it_read(
    players: Mailer, db_sessions: sessionmaker[Session], db_config: Config,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another worker takes the next board number right after the challenge read it, every
    time; run inside its write transaction the challenge holds the counter from its read
    (PostgreSQL locks the row, SQLite's transaction the database), so the other waits."""
    other = OtherWorker(players, db_sessions)
    other.takes_each_number_read(monkeypatch)
    mail = CommandMail("alice@example.org", "emergo challenge alice bob", "", "<lose@x.org>")
    number = challenge_board(answer(db_sessions, mail, db_config, players.now))
    monkeypatch.undo()
    boards = other.boards()
    # Each optimistic try lost its number; inside the write transaction it kept it.
    assert number > 100 + OPTIMISTIC_ATTEMPTS
    assert boards[number] == (other.alice, other.bob)
    assert len(boards) == len(other.threads) + 1
    assert all(boards[n] == (other.bob, other.alice) for n in boards if n != number)


def test_a_line_of_a_multiple_mail_that_keeps_losing_its_race_runs_inside_its_write_transaction(
    players: Mailer, db_sessions: sessionmaker[Session], db_config: Config,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lines of a ``multiple`` mail run one by one, each as a mail does: a challenge line
    that loses its board number every time it is about to write runs inside its write
    transaction after OPTIMISTIC_ATTEMPTS tries, and the line after it sees its board."""
    other = OtherWorker(players, db_sessions)
    other.takes_each_number_read(monkeypatch)
    body = "emergo challenge alice bob\nemergo games alice\n"
    mail = CommandMail("alice@example.org", "multiple", body, "<lines@x.org>")
    report, *board_mails = answer(db_sessions, mail, db_config, players.now)
    monkeypatch.undo()
    boards = other.boards()
    number = challenge_board(board_mails)
    # Each optimistic try lost its number; inside the write transaction it kept it.
    assert number > 100 + OPTIMISTIC_ATTEMPTS
    assert len(boards) == len(other.threads) + 1
    assert boards[number] == (other.alice, other.bob)
    assert all(boards[n] == (other.bob, other.alice) for n in boards if n != number)
    assert report.subject == "Emergo multiple: 2 done, 0 failed", report.body
    games_answer = report.body.split("> emergo games alice")[1]
    assert str(number) in games_answer
