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
from pbm_emergo.db import challenges as challenge_store
from pbm_emergo.db import errors, games
from pbm_emergo.db import players as players_store
from pbm_emergo.db.apply import apply
from pbm_emergo.db.models import Board
from pbm_emergo.db.session import read_sessions
from pbm_emergo.mail.commands import CommandText, dispatch
from pbm_emergo.mail.worker import answer
from tests.support.mailer import Mailer
from tests.support.waits import scaled

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
    """Another worker's challenges between bob and alice, each committing a board at once:
    the mail it races holds no write lock while it reads and answers."""

    def __init__(self, players: Mailer, db_sessions: sessionmaker[Session]) -> None:
        self.db_sessions = db_sessions
        self.now = players.now
        with db_sessions() as session:
            alice = players_store.find_player(session, "alice")
            bob = players_store.find_player(session, "bob")
            assert alice is not None and bob is not None
        self.alice, self.bob = alice.id, bob.id
        self.made = 0

    def create_a_board(self) -> None:
        def create() -> None:
            with self.db_sessions.begin() as session:
                games.create_board(session, self.bob, self.alice, self.now)

        worker = threading.Thread(target=create)
        worker.start()
        worker.join(scaled(10))
        # Stored at once: the mail it races does not hold the write lock meanwhile (a mail
        # that answered inside its write transaction would keep this one waiting).
        assert not worker.is_alive()
        self.made += 1

    def takes_each_number_read(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Take the next board number right after a challenge read it, every time."""
        read_number = games.last_board_number

        def read_then_lose_it(session: Session) -> int:
            number = read_number(session)
            self.create_a_board()
            return number

        monkeypatch.setattr(games, "last_board_number", read_then_lose_it)

    def boards(self) -> dict[int, tuple[int, int]]:
        """Every board's number and (white, black)."""
        with self.db_sessions() as session:
            return {b.number: (b.white_player_id, b.black_player_id)
                    for b in session.scalars(select(Board))}


def challenge_board(replies: list[Reply]) -> int:
    [number] = {int(r.subject.split()[3]) for r in replies}
    assert [r.subject for r in replies] == [f"New Emergo Board {number} alice"] * 2
    return number


def test_a_challenge_that_lost_its_board_number_makes_its_board_with_one_set_aside(
    players: Mailer, db_sessions: sessionmaker[Session], db_config: Config
) -> None:
    """A challenge whose board number another worker takes each time it is about to write
    loses it once: the next number is then set aside for it, which no other board can
    take, and it gets it on its next try (instead of starting over until it gives up)."""
    other = OtherWorker(players, db_sessions)

    def another_worker_creates_a_board(
        session: Session, mail: CommandMail, config: Config, now: datetime,
        *, text: CommandText, board_number: int | None = None,
    ) -> tuple[list[Reply], list[Write]]:
        # The commands have read and answered, before their write.
        ran = dispatch(session, mail, config, now, text=text, board_number=board_number)
        other.create_a_board()
        return ran

    mail = CommandMail("alice@example.org", "emergo challenge alice bob", "", "<race@x.org>")
    number = challenge_board(answer(db_sessions, mail, db_config, players.now,
                                    processor=another_worker_creates_a_board))
    boards = other.boards()
    # The other worker took 101 from under it; 102 was set aside for it; the other's board
    # made while the challenge answered again came after it.
    assert other.made == 2
    assert number == 102
    assert boards == {101: (other.bob, other.alice), 102: (other.alice, other.bob),
                      103: (other.bob, other.alice)}


def test_a_challenge_keeps_the_number_set_aside_for_it(
    players: Mailer, db_sessions: sessionmaker[Session], db_config: Config,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another worker takes the next board number right after the challenge read it, every
    time: the challenge reads the next number once; the number set aside for it after it
    lost that one is not read but kept, so the other takes no more."""
    other = OtherWorker(players, db_sessions)
    other.takes_each_number_read(monkeypatch)
    mail = CommandMail("alice@example.org", "emergo challenge alice bob", "", "<lose@x.org>")
    number = challenge_board(answer(db_sessions, mail, db_config, players.now))
    assert other.made == 1
    assert number == 102
    assert other.boards() == {101: (other.bob, other.alice), 102: (other.alice, other.bob)}


def test_a_number_set_aside_for_a_challenge_refused_after_all_is_skipped(
    players: Mailer, db_sessions: sessionmaker[Session], db_config: Config
) -> None:
    """The challenge lost its number to another board, and before its next try the player
    it challenged came to refuse challenges: it is refused, and the number set aside for
    its board is never handed out (numbers go up; none is given twice)."""
    other = OtherWorker(players, db_sessions)

    def bob_refuses_meanwhile(
        session: Session, mail: CommandMail, config: Config, now: datetime,
        *, text: CommandText, board_number: int | None = None,
    ) -> tuple[list[Reply], list[Write]]:
        ran = dispatch(session, mail, config, now, text=text, board_number=board_number)
        if board_number is None:
            other.create_a_board()
            with db_sessions.begin() as writing:
                challenge_store.set_policy(writing, other.bob, refuses=True, board_limit=None)
        return ran

    mail = CommandMail("alice@example.org", "emergo challenge alice bob", "", "<gap@x.org>")
    [refused] = answer(db_sessions, mail, db_config, players.now,
                       processor=bob_refuses_meanwhile)
    assert refused.subject == "Emergo error"
    assert "bob" in refused.body
    assert other.boards() == {101: (other.bob, other.alice)}
    with db_sessions.begin() as writing:
        challenge_store.set_policy(writing, other.bob, refuses=False, board_limit=None)
    again = CommandMail("alice@example.org", "emergo challenge alice bob", "", "<again@x.org>")
    assert challenge_board(answer(db_sessions, again, db_config, players.now)) == 103


def test_a_line_of_a_multiple_mail_that_lost_its_board_number_gets_one_set_aside(
    players: Mailer, db_sessions: sessionmaker[Session], db_config: Config,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lines of a ``multiple`` mail run one by one, each as a mail does: a challenge line
    that loses its board number gets the next one set aside, and the line after it sees its
    board."""
    other = OtherWorker(players, db_sessions)
    other.takes_each_number_read(monkeypatch)
    body = "emergo challenge alice bob\nemergo games alice\n"
    mail = CommandMail("alice@example.org", "multiple", body, "<lines@x.org>")
    report, *board_mails = answer(db_sessions, mail, db_config, players.now)
    number = challenge_board(board_mails)
    assert other.made == 1
    assert number == 102
    assert other.boards() == {101: (other.bob, other.alice), 102: (other.alice, other.bob)}
    assert report.subject == "Emergo multiple: 2 done, 0 failed", report.body
    games_answer = report.body.split("> emergo games alice")[1]
    assert str(number) in games_answer
