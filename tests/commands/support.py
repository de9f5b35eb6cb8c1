"""What several command test modules share: moves by alice and bob, the board's row and
moves as stored, the scheduler run after some time."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import Board, MoveRecord
from pbm_emergo.game.messages import Reply
from pbm_emergo.game.timers import scheduled
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


def run_scheduler(mailer: Mailer, after: timedelta) -> list[Reply]:
    mailer.now += after
    with mailer.factory.begin() as session:
        return scheduled(session, mailer.config, mailer.now)


def board(factory: sessionmaker[Session]) -> Board:
    with factory() as session:
        return session.scalars(select(Board).where(Board.number == 101)).one()
