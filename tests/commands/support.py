"""What several command test modules share: moves by alice and bob, the board's row and
moves as stored, the scheduler run after some time."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.timers import scheduled
from pbm_emergo.db.apply import apply
from pbm_emergo.db.models import Board, MoveRecord
from pbm_emergo.db.outbox import outbound_row, queue_outbound
from pbm_emergo.db.session import read_sessions
from tests.support.mailer import Mailer

ADDRESS = {"alice": "alice@example.org", "bob": "bob@example.org"}
PASSWORD = {"alice": "alicepw", "bob": "bobpw"}


def move(m: Mailer, userid: str, text: str, board: int = 101, body: str = "") -> list[Reply]:
    return m.send(
        f"emergo move {board} {userid} {PASSWORD[userid]} {text}", body, sender=ADDRESS[userid]
    )


def play_all(m: Mailer, moves: tuple[str, ...] | list[str], board: int = 101) -> list[Reply]:
    """Play the moves alternately (alice first) and return the last move's replies."""
    replies: list[Reply] = []
    for i, text in enumerate(moves):
        replies = move(m, "alice" if i % 2 == 0 else "bob", f"{text}#{i + 1}", board)
        assert all("Error" not in r.subject for r in replies), replies[0].body
    return replies


def board_row(m: Mailer, number: int = 101) -> Board:
    with m.factory() as session:
        board = session.get(Board, number)
        assert board is not None
        return board


def notations(m: Mailer, number: int = 101) -> list[str]:
    with m.factory() as session:
        return list(
            session.scalars(
                select(MoveRecord.notation)
                .where(MoveRecord.board_number == number)
                .order_by(MoveRecord.number)
            )
        )


def error(replies: list[Reply], sender: str) -> Reply:
    assert len(replies) == 1, [(r.to, r.subject) for r in replies]
    assert replies[0].to == sender
    return replies[0]


def run_scheduler(mailer: Mailer, after: timedelta, *, delivered: bool = True) -> list[Reply]:
    """Run the scheduler ``after`` later; its mails are sent at once (``delivered``: stored
    in the outbox as sent, as the outbox sender would; a reminder counts only once sent),
    else left queued."""
    mailer.now += after
    # As the Scheduler runs it: read, decide and render, then each board's work written
    # with its mails (recorded here as the outbox would, sent at once or left queued).
    with read_sessions(mailer.factory)() as session:
        works = scheduled(session, mailer.config, mailer.now)
    replies: list[Reply] = []
    for work in works:
        with mailer.factory.begin() as session:
            apply(session, work.changes)
            queue_outbound(session, [
                {**outbound_row(reply.to, reply.body.encode(), mailer.now,
                                subject=reply.subject, board_number=reply.board,
                                status="sent" if delivered else "pending"),
                 "sent_at": mailer.now if delivered else None}
                for reply in work.replies
            ])  # fmt: skip
        replies.extend(work.replies)
    return replies


def board(factory: sessionmaker[Session]) -> Board:
    with factory() as session:
        return session.scalars(select(Board).where(Board.number == 101)).one()
