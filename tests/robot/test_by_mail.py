"""Robots by mail, through the real listener (smtplib), workers, robot runner and a relay
receiving the replies: a whole game against a robot, a robot that opens and answers draw
offers and take-back requests, a robot turn pending across a restart, a robot thinking
while other mail is answered, and robots refusing every password."""

from __future__ import annotations

import dataclasses
import random
import re
import threading
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app import robots
from pbm_emergo.config import Config
from pbm_emergo.db import players
from pbm_emergo.db.models import Board, InboundMessage, MoveRecord, OutboundMessage, Player
from pbm_emergo.db.session import read_sessions
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from pbm_emergo.robot import ROBOTS
from pbm_emergo.rules import Position
from tests.support.mail import SERVER_ADDRESS, Relay, command_mail, free_port, send, wait_for
from tests.support.post import reply_ids
from tests.support.signup import confirmation_code
from tests.support.waits import scaled

ALICE, PASSWORD = "alice@example.org", "Alice-pw1"


class Site:
    """A running server and a relay; alice is signed up."""

    def __init__(self, config: Config, sessions: sessionmaker[Session]) -> None:
        self.config = config
        self.sessions = sessions
        self.reads = read_sessions(sessions)  # polling never takes the write lock
        self.relay = Relay()
        self.relay.start()
        self.config = dataclasses.replace(self.config, outbound=self.relay.url)
        self.server: MailServer | None = None
        self.count = 0

    def start(self) -> None:
        self.server = MailServer(
            self.config, self.sessions,
            backoff=Backoff(base=timedelta(milliseconds=100), cap=timedelta(seconds=1)),
            poll_seconds=0.1,
        )
        self.server.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    def send(self, subject: str) -> list[EmailMessage]:
        """Mail ``subject`` from alice; the replies to it once they are relayed."""
        self.count += 1
        message_id = f"<robot{self.count}@example.org>"
        send(self.config.smtp_port, command_mail(subject, sender=ALICE, message_id=message_id))

        def answered() -> bool:
            with self.reads.begin() as session:
                inbound = session.scalars(
                    select(InboundMessage).where(InboundMessage.message_id == message_id)
                ).one_or_none()
                done = inbound is not None and inbound.status == "done"
            return done and self.all_sent()

        wait_for(answered)
        ids = reply_ids(self.reads, message_id)
        return self.relay.handler.with_message_ids(ids)

    def all_sent(self) -> bool:
        with self.reads.begin() as session:
            statuses = set(session.scalars(select(OutboundMessage.status)))
        return statuses <= {"sent"}

    def board(self, number: int) -> Board:
        with self.reads.begin() as session:
            board = session.get(Board, number)
            assert board is not None
            session.expunge(board)
            return board

    def wait_for_turn(self, number: int, side: str) -> Board:
        """Wait until ``side`` is to move on the board (or the game is over) and every mail
        is out."""

        def ready() -> Board | None:
            board = self.board(number)
            done = board.to_move == side or board.status != "active"
            return board if done and self.all_sent() else None

        result: Board = wait_for(ready, timeout=60)
        return result

    def mails_to_alice(self, number: int) -> list[EmailMessage]:
        return [
            m for m in self.relay.handler.messages()
            if str(m["To"]) == ALICE and f"Board {number} " in str(m["Subject"])
        ]


def text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert isinstance(part, EmailMessage)
    content = part.get_content()
    assert isinstance(content, str)
    return content


@pytest.fixture
def site(
    db_config: Config,
    db_sessions: sessionmaker[Session],
    monkeypatch: pytest.MonkeyPatch,
    quick_argon2: None,
) -> Iterator[Site]:
    monkeypatch.setenv(robots.SECONDS_ENV, "5")
    config = dataclasses.replace(
        db_config, address=SERVER_ADDRESS, smtp_port=free_port(), reply_limit=100_000
    )
    site = Site(config, db_sessions)
    site.start()
    try:
        [code_mail] = site.send(f"signup alice {PASSWORD}")
        code_part = code_mail.get_body(("plain",))
        assert code_part is not None
        [welcome] = site.send(f"confirm {confirmation_code(code_part.get_content())}")
        assert welcome["Subject"] == "Emergo: welcome alice"
        yield site
    finally:
        site.stop()
        site.relay.stop()


def challenge(site: Site, white: str, black: str) -> int:
    mails = site.send(f"emergo challenge {white} {black}")
    found = re.search(r"Board (\d+)", str(mails[0]["Subject"]))
    assert found is not None
    return int(found[1])


def test_the_migration_made_the_robots(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        rows = session.scalars(select(Player).where(Player.userid_key.in_(list(ROBOTS)))).all()
        assert sorted(p.userid for p in rows) == ["robot1", "robot2", "robot3"]
        assert all(p.rating == 1600 and not p.addresses for p in rows)


def test_a_robot_game_by_mail_to_the_end(site: Site) -> None:
    number = challenge(site, "alice", "robot1")
    rng = random.Random(5)
    played = 0
    while True:
        board = site.wait_for_turn(number, "white")
        if board.status != "active":
            break
        position = Position.from_text(board.position)
        move = rng.choice(position.legal_moves())
        mails = site.send(f"emergo move {number} alice {PASSWORD} {move}#{board.ply + 1}")
        assert [str(m["To"]) for m in mails] == [ALICE]  # the robot has no address
        assert f"alice played {move} (move {board.ply + 1})." in text(mails[0])
        played += 1
        assert played < 300
    assert board.outcome_reason is not None
    # Every robot move came as a board mail like a person's, and the last one says who won.
    robot_mails = [m for m in site.mails_to_alice(number) if "robot1 played" in text(m)]
    assert len(robot_mails) >= played - 1
    last = site.mails_to_alice(number)[-1]
    assert last["Subject"] == f"Emergo Board {number} Game over"
    with site.sessions.begin() as session:
        robot = session.scalars(select(Player).where(Player.userid_key == "robot1")).one()
        assert robot.rated_games == 1  # rated against people: its rating moved
        assert robot.won + robot.lost + robot.drawn == 1


def test_a_robot_opens_and_answers_draw_offers_and_take_backs(site: Site) -> None:
    number = challenge(site, "robot2", "alice")
    board = site.wait_for_turn(number, "black")
    assert board.ply == 1
    [opening] = site.mails_to_alice(number)[-1:]
    assert "robot2 played" in text(opening) and "(move 1)" in text(opening)

    # An even game: the robot turns the draw down.
    site.send(f"emergo move {number} alice {PASSWORD} propose")
    wait_for(lambda: any("robot2 rejected alice's draw offer." in text(m)
                         for m in site.mails_to_alice(number)))
    assert site.board(number).status == "active"

    position = Position.from_text(site.board(number).position)
    move = position.legal_moves()[0]
    site.send(f"emergo move {number} alice {PASSWORD} {move}#2")
    board = site.wait_for_turn(number, "black")
    assert board.ply == 3
    # Taking back move 2 leaves the robot no worse off: granted.
    site.send(f"emergo move {number} alice {PASSWORD} undo")
    wait_for(lambda: any("robot2 accepted: moves 2 to 3 taken back." in text(m)
                         for m in site.mails_to_alice(number)))
    board = site.wait_for_turn(number, "black")
    assert board.ply == 1


def test_a_robot_accepts_a_draw_when_it_stands_worse() -> None:
    task = robots.Task(
        number=101, robot_id=1, robot="robot3", level=3, ply=80, kind="draw",
        position="x 0 0 80 e5=x1,c4=o5,g6=o4,i5=o2", history=(), blocked="loss", robot_side=1,
    )
    assert robots.decide(task, 2.0).kind == "accept"
    better = dataclasses.replace(task, robot_side=0, position="o 0 0 80 e5=x1,c4=o5,g6=o4,i5=o2")
    assert robots.decide(better, 2.0).kind == "reject"
    move = dataclasses.replace(task, kind="move")
    assert robots.decide(move, 2.0).kind == "resign"


def test_a_pending_robot_turn_is_played_after_a_restart(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    site.stop()
    monkeypatch.setenv(robots.ENABLED_ENV, "off")
    site.start()
    number = challenge(site, "robot3", "alice")
    assert site.board(number).ply == 0  # nobody plays robot turns on this server
    site.stop()
    monkeypatch.delenv(robots.ENABLED_ENV)
    site.start()
    board = site.wait_for_turn(number, "black")
    assert board.ply == 1
    assert "robot3 played" in text(site.mails_to_alice(number)[-1])


def test_a_robot_thinking_does_not_hold_up_other_mail(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    thinking = threading.Event()
    release = threading.Event()
    real = robots.think

    def slow_think(*args: Any, **kwargs: Any) -> Any:
        thinking.set()
        release.wait(scaled(60))
        return real(*args, **kwargs)

    monkeypatch.setattr(robots, "think", slow_think)
    number = challenge(site, "robot1", "alice")
    assert thinking.wait(scaled(30))
    try:
        # While the robot thinks, mail is answered as usual.
        [answer] = site.send("help")
        assert answer["Subject"] == "Emergo help"
        assert "robot1 (weak), robot2 (medium) and robot3 (strong)" in text(answer)
        [shown] = site.send(f"emergo show {number}")
        assert site.board(number).ply == 0
    finally:
        release.set()
    assert site.wait_for_turn(number, "black").ply == 1


@pytest.mark.parametrize(
    "password", ["", "robot1", "!robot:", "Alice-pw1"]
)
def test_robots_refuse_passwords(
    site: Site, db_sessions: sessionmaker[Session], password: str
) -> None:
    number = challenge(site, "alice", "robot1")
    site.wait_for_turn(number, "white")
    with db_sessions.begin() as session:
        robot = session.scalars(select(Player).where(Player.userid_key == "robot1")).one()
        assert not players.check_password(robot.id, robot.password_hash, password).ok
    if password and password != "robot1":  # (a password equal to the userid is masked)
        [reply] = site.send(f"emergo move {number} robot1 {password} undo")
        assert text(reply).startswith("Wrong password for robot1.")
    assert site.board(number).ply == 0



# --- one mail a turn -----------------------------------------------------------------------


def restart_with(site: Site, **settings: Any) -> None:
    site.stop()
    site.config = dataclasses.replace(site.config, **settings)
    site.start()


def played(site: Site, number: int, move: int) -> str:
    """The notation of move ``move`` on board ``number``, as stored."""
    with site.reads.begin() as session:
        return str(session.scalars(
            select(MoveRecord.notation)
            .where(MoveRecord.board_number == number, MoveRecord.number == move)
        ).one())  # fmt: skip


def test_a_turn_against_a_robot_is_one_mail_with_both_moves(site: Site) -> None:
    """alice's board mail waits for robot1's answer, which takes its place: one mail a
    turn, the answer to her move mail, saying her move and the robot's."""
    restart_with(site, robot_reply_wait=120.0)  # however busy the machine, robot1 answers
    number = challenge(site, "alice", "robot1")
    before = len(site.mails_to_alice(number))
    rng = random.Random(7)
    for turn in range(1, 4):
        board = site.wait_for_turn(number, "white")
        move = rng.choice(Position.from_text(board.position).legal_moves())
        [mail] = site.send(f"emergo move {number} alice {PASSWORD} {move}#{board.ply + 1}")
        after = site.wait_for_turn(number, "white")
        said = text(mail)
        assert f"alice played {move} (move {board.ply + 1})." in said
        if after.ply > board.ply + 1:
            robots_move = played(site, number, board.ply + 2)
            assert f"robot1 played {robots_move} (move {board.ply + 2})." in said
        assert len(site.mails_to_alice(number)) == before + turn
        if after.status != "active":
            break


def test_a_robot_slower_than_the_wait_sends_its_own_mail(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """robot1 thinks longer than the wait: alice's board mail goes alone when the wait is
    over, and the robot's answer comes as a mail of its own after it."""
    restart_with(site, robot_reply_wait=0.5)
    number = challenge(site, "alice", "robot1")
    thinking = threading.Event()
    release = threading.Event()
    real = robots.think

    def slow_think(*args: Any, **kwargs: Any) -> Any:
        thinking.set()
        release.wait(scaled(60))
        return real(*args, **kwargs)

    monkeypatch.setattr(robots, "think", slow_think)
    before = len(site.mails_to_alice(number))
    move = Position().legal_moves()[0]
    try:
        [mine] = site.send(f"emergo move {number} alice {PASSWORD} {move}#1")
        assert thinking.wait(scaled(30))
    finally:
        release.set()
    assert f"alice played {move} (move 1)." in text(mine)
    assert "robot1 played" not in text(mine)
    site.wait_for_turn(number, "white")
    mails = site.mails_to_alice(number)
    assert len(mails) == before + 2
    assert "robot1 played" in text(mails[-1])


@pytest.mark.slow
def test_a_fast_game_against_robot1_never_meets_the_hourly_cap(site: Site) -> None:
    """alice mails each of her moves against robot1 as soon as it is her turn, 70 moves of
    play in all (a new game when one ends), under a cap of half the default (50 mails an
    hour): one mail a turn keeps her under it, so no mail of hers is held and no "reply
    limit reached" notice comes; two mails a turn would have met it near move 45."""
    restart_with(site, reply_limit=50, robot_reply_wait=120.0)
    rng = random.Random(11)
    boards = [challenge(site, "alice", "robot1")]
    moves = turns = 0
    while moves < 70:
        board = site.wait_for_turn(boards[-1], "white")
        if board.status != "active":
            moves += board.ply
            boards.append(challenge(site, "alice", "robot1"))
            continue
        if moves + board.ply >= 70:
            break
        move = rng.choice(Position.from_text(board.position).legal_moves())
        [mail] = site.send(f"emergo move {boards[-1]} alice {PASSWORD} {move}#{board.ply + 1}")
        assert f"alice played {move} (move {board.ply + 1})." in text(mail)
        turns += 1
    # Each new board's mail, then one a turn.
    mails = [m for number in boards for m in site.mails_to_alice(number)]
    assert len(mails) == len(boards) + turns
    with site.reads.begin() as session:
        rows = session.execute(
            select(OutboundMessage.subject, OutboundMessage.last_error)
            .where(OutboundMessage.recipient == ALICE)
        ).all()
    assert all(error is None for _, error in rows), [e for _, e in rows if e]
    assert "Emergo: reply limit reached" not in {subject for subject, _ in rows}
