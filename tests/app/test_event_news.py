"""The events' step makes no mail in its write transaction: what the players are to be told
is stored as news with the changes that make it news, and mailed (made, then queued and
marked told in one short write) by ``tell_news`` afterwards; news a crash left untold goes
out the next time, and each goes out once."""

from __future__ import annotations

import threading
from datetime import timedelta
from functools import partial

import pytest
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.events import advance_events, tell_news
from pbm_emergo.app.runner import Ran, Runner
from pbm_emergo.cli import main
from pbm_emergo.config import Config
from pbm_emergo.db import games
from pbm_emergo.db.models import Board, EventNews, OutboundMessage, Player
from tests.support.mailer import ADDRESSES, PASSWORDS, Mailer
from tests.support.statements import write_transactions
from tests.support.text import flat

MORE = {"carol": "carolpw", "dave": "davepw"}
PASSWORD = {**PASSWORDS, **MORE}
ADDRESS = {**ADDRESSES, **{userid: f"{userid}@example.org" for userid in MORE}}


@pytest.fixture
def four(db_sessions: sessionmaker[Session], db_config: Config, database_url: str) -> Mailer:
    """alice, bob, carol and dave in the round robin "autumn", full: it starts when the
    scheduler next looks."""
    mailer = Mailer(db_sessions, db_config)
    for userid in PASSWORD:
        mailer.signup(userid, PASSWORD[userid], ADDRESS[userid])
    assert main(["admin", "event", "create", "autumn", "--format", "round-robin",
                 "--max-players", "4", "--database-url", database_url]) == 0  # fmt: skip
    for userid in PASSWORD:
        mailer.send(f"emergo join autumn {userid} {PASSWORD[userid]}", sender=ADDRESS[userid])
    return mailer


def outbox_count(sessions: sessionmaker[Session]) -> int:
    with sessions() as session:
        return int(session.scalar(select(func.count()).select_from(OutboundMessage)) or 0)


def news(sessions: sessionmaker[Session]) -> list[tuple[str, int | None, int | None]]:
    with sessions() as session:
        return [
            (row.kind, row.board_number, row.round_number)
            for row in session.execute(
                select(EventNews.kind, EventNews.board_number, EventNews.round_number)
                .order_by(EventNews.id)
            )
        ]


def advance(mailer: Mailer) -> None:
    """The scheduler's events step alone, its steps each stored."""
    mailer.now += timedelta(minutes=1)
    advance_events(Runner(mailer.factory, mailer.config), mailer.config, mailer.now)


def tell(mailer: Mailer) -> Ran:
    runner = Runner(mailer.factory, mailer.config, clock=lambda: mailer.now)
    return runner.perform(partial(tell_news, config=mailer.config))


def round_boards(sessions: sessionmaker[Session]) -> list[int]:
    with sessions() as session:
        return list(session.scalars(
            select(Board.number).where(Board.event_id.is_not(None), Board.status == "active")
            .order_by(Board.number)
        ))  # fmt: skip


def test_a_round_s_boards_are_news_and_their_mails_go_out_after_the_commit(
    four: Mailer,
) -> None:
    before = outbox_count(four.factory)
    advance(four)
    boards = round_boards(four.factory)
    assert len(boards) == 2
    # The boards are open, their mails not made: nothing queued in the events' transaction.
    assert outbox_count(four.factory) == before
    assert news(four.factory) == [("board", board, 1) for board in boards]

    told = tell(four)
    assert told.work is not None and told.queued == 4  # each board's mail to its two players
    assert news(four.factory) == []
    assert {(r.subject.rsplit(" ", 1)[0], r.board) for r in told.work.replies} == {
        (f"New Emergo Board {board}", board) for board in boards
    }
    assert {r.to for r in told.work.replies} == set(ADDRESS.values())
    assert all("The event autumn, round 1: " in flat(r.body) for r in told.work.replies)
    # Told once: nothing more to tell.
    assert tell(four).work is None
    assert outbox_count(four.factory) == before + 4


def test_news_a_crash_left_untold_goes_out_the_next_time(four: Mailer) -> None:
    advance(four)
    # The process died after the events' commit: the next look tells it, even with no
    # event left to advance.
    advance(four)
    assert len(news(four.factory)) == 2
    assert tell(four).queued == 4
    assert news(four.factory) == []


def test_each_news_goes_out_once_when_two_schedulers_tell_at_once(four: Mailer) -> None:
    advance(four)
    start = threading.Barrier(2)
    told: list[Ran] = []

    def one() -> None:
        start.wait()
        told.append(tell(four))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sum(ran.queued for ran in told) == 4
    assert news(four.factory) == []


def test_an_event_that_cannot_start_is_news_too(
    db_sessions: sessionmaker[Session], db_config: Config, database_url: str
) -> None:
    mailer = Mailer(db_sessions, db_config)
    mailer.signup("alice", PASSWORD["alice"], ADDRESS["alice"])
    assert main(["admin", "event", "create", "winter", "--format", "swiss",
                 "--starts", "2026-11-21T10:00", "--database-url", database_url]) == 0  # fmt: skip
    mailer.send(f"emergo join winter alice {PASSWORD['alice']}", sender=ADDRESS["alice"])
    advance(mailer)
    assert news(db_sessions) == [("cancelled", None, None)]
    told = tell(mailer)
    assert told.work is not None
    [mail] = told.work.replies
    assert (mail.to, mail.subject) == (ADDRESS["alice"], "Emergo event winter cancelled")
    assert "fewer than two players joined" in mail.body


def test_a_board_removed_before_its_news_is_told_is_told_of_no_more(four: Mailer) -> None:
    advance(four)
    first, second = round_boards(four.factory)
    with four.factory.begin() as session:
        session.execute(delete(Board).where(Board.number == first))
    # The news of the board went with it (ON DELETE CASCADE); the other is told.
    assert news(four.factory) == [("board", second, 1)]
    assert tell(four).queued == 2


def test_a_news_that_cannot_be_told_holds_up_no_other(four: Mailer) -> None:
    advance(four)
    first, second = round_boards(four.factory)
    with four.factory.begin() as session:
        # A board's news without its round (written by hand): its headline cannot be made.
        session.execute(
            update(EventNews).where(EventNews.board_number == first).values(round_number=None)
        )
    told = tell(four)
    assert told.queued == 2
    assert news(four.factory) == [("board", first, None)]


def test_an_event_moves_on_step_by_step_each_step_its_own_short_write(four: Mailer) -> None:
    """The events' step reads, decides, then stores what it decided in a short write of its
    own, and the next step reads what the one before stored: the full round robin starts
    with its first round in one step; once both games have ended, one step takes their
    results and the next, reading them as stored, finishes the round and opens round 2."""
    engine = four.factory.kw["bind"]
    with write_transactions(engine) as begun:
        assert _look(four) == 1
    assert len(begun) == 1
    first = round_boards(four.factory)
    assert len(first) == 2
    # Nothing to do until a game ends: a look stores nothing.
    assert _look(four) == 0
    for board in first:
        white = _white_of(four, board)
        four.send(f"emergo resign {board} {white} {PASSWORD[white]}", sender=ADDRESS[white])
    with write_transactions(engine) as begun:
        assert _look(four) == 2
    assert len(begun) == 2
    second = round_boards(four.factory)
    assert len(second) == 2 and not set(second) & set(first)
    assert [(kind, round_number) for kind, _, round_number in news(four.factory)] == [
        ("board", 1), ("board", 1), ("board", 2), ("board", 2)
    ]


def _look(mailer: Mailer) -> int:
    """One look of the scheduler at the events: how many steps it stored."""
    mailer.now += timedelta(minutes=1)
    return advance_events(Runner(mailer.factory, mailer.config), mailer.config, mailer.now)


def _white_of(mailer: Mailer, board: int) -> str:
    with mailer.factory() as session:
        return str(session.scalars(
            select(Player.userid).join(Board, Board.white_player_id == Player.id)
            .where(Board.number == board)
        ).one())  # fmt: skip


def test_a_board_taken_by_a_challenge_meanwhile_starts_the_round_s_opening_over(
    four: Mailer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round's boards are numbered on from the last board number read; a challenge that
    takes that number before the step's write makes the write conflict, and the step starts
    over from a fresh read: its boards come after the challenge's."""
    with four.factory() as session:
        alice, bob = (
            session.scalars(select(Player.id).where(Player.userid == userid)).one()
            for userid in ("alice", "bob")
        )
    read_number = games.last_board_number
    taken: list[int] = []

    def read_then_lose_it(session: Session) -> int:
        number = read_number(session)
        if not taken:  # once: a challenge stored right after the step read the number
            with four.factory.begin() as other:
                taken.append(games.create_board(other, alice, bob, four.now).number)
        return number

    monkeypatch.setattr(games, "last_board_number", read_then_lose_it)
    advance(four)
    monkeypatch.undo()
    boards = round_boards(four.factory)
    assert taken == [101]
    assert boards == [102, 103]
    assert news(four.factory) == [("board", 102, 1), ("board", 103, 1)]



def test_two_schedulers_at_once_start_the_event_once(four: Mailer) -> None:
    """Two looks at the events at the same moment both read the full round robin as due:
    one stores its start with round 1, the other's write finds the event started meanwhile
    and starts over, with nothing left to do: one round, two boards, each told once."""
    four.now += timedelta(minutes=1)
    start = threading.Barrier(2)
    stored: list[int] = []

    def look() -> None:
        runner = Runner(four.factory, four.config)
        start.wait()
        stored.append(advance_events(runner, four.config, four.now))

    threads = [threading.Thread(target=look) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(stored) == [0, 1]
    boards = round_boards(four.factory)
    assert len(boards) == 2
    assert news(four.factory) == [("board", board, 1) for board in boards]
