"""The robots shared fairly, through the real listener, workers, robot runner and relay.

The attack: one mail of many challenges against a robot, so that the robots, which think
about one board at a time, spent their time on that player's boards while another player's
robot answer waited behind all of them. Now a player has at most
``robot_games_per_player`` (default 10) active games against the robots, and the robots
answer the players waiting in turn, however many boards each has.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

import pytest
from sqlalchemy import select

from pbm_emergo.app import robots
from pbm_emergo.db.models import Board, MoveRecord
from pbm_emergo.robot import think
from tests.support.mail import wait_for
from tests.support.post import ALICE, BOB, Post, text
from tests.support.waits import scaled

BOARD = re.compile(r"\bBoard (\d+)\b")


def boards_in(mails: list[EmailMessage]) -> list[int]:
    """The board numbers named in the Subjects of ``mails``, in order."""
    found = (BOARD.search(str(m["Subject"])) for m in mails)
    return sorted({int(match[1]) for match in found if match is not None})


def robot_challenges(count: int, line: str) -> str:
    return "\n".join([line] * count) + "\n"


def test_one_mail_cannot_start_more_robot_games_than_the_limit(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    mails = post.send("multiple", ALICE, body=robot_challenges(12, "emergo challenge alice robot3"))
    started = boards_in(mails)
    assert len(started) == 10  # the default limit
    assert all(str(m["To"]) == ALICE for m in mails)  # the robot has no address
    [report] = [m for m in mails if not BOARD.search(str(m["Subject"]))]
    assert str(report["Subject"]) == "Emergo multiple: 10 done, 2 failed"
    refusal = (
        f"alice has 10 active games against the robots (boards "
        f"{', '.join(str(n) for n in started)}), and 10 is the most one player may have at "
        "a time, so no board was started."
    )
    assert " ".join(text(report).split()).count(refusal) == 2, text(report)
    # A mail on its own is refused the same way, and starts nothing.
    [refused] = post.send("emergo challenge robot1 alice", ALICE)
    assert refusal in " ".join(text(refused).split())
    assert "finish or resign one of those games, then challenge again" in " ".join(
        text(refused).split()
    )
    with post.sessions() as session:
        assert session.scalars(select(Board.number).order_by(Board.number.desc())).first() == (
            started[-1]
        )
    # Others still play the robots, and alice still plays people.
    assert boards_in(post.send("emergo challenge bob robot3", BOB)) == [started[-1] + 1]
    people = post.send("emergo challenge alice bob", ALICE)
    assert sorted(str(m["To"]) for m in people) == [ALICE, BOB]
    assert boards_in(people) == [started[-1] + 2]
    # A game that ends (here: declined before the first move) frees its place.
    post.send(f"emergo resign {started[0]} alice alice-pw1", ALICE)
    with post.sessions() as session:
        assert session.get(Board, started[0]) is None
    assert boards_in(post.send("emergo challenge alice robot1", ALICE)) == [started[-1] + 3]


def test_many_robot_games_of_one_player_do_not_hold_up_another(
    make_post: Callable[..., Post], monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice has ten boards where a robot is to move; bob's robot answer comes next after
    the one the robots were thinking about when bob's board arrived, not after all ten."""
    monkeypatch.setenv(robots.SECONDS_ENV, "0.5")
    thinking = threading.Event()
    release = threading.Event()

    def held_think(*args: Any, **kwargs: Any) -> Any:
        thinking.set()
        release.wait(scaled(60))
        return think(*args, **kwargs)

    monkeypatch.setattr(robots, "think", held_think)
    post = make_post()
    try:
        alices = boards_in(
            post.send("multiple", ALICE, body=robot_challenges(10, "emergo challenge robot1 alice"))
        )
        assert len(alices) == 10
        assert thinking.wait(scaled(30))  # a robot is thinking about one of alice's boards
        [bobs] = boards_in(post.send("emergo challenge robot1 bob", BOB))
        # Longer than the server's poll interval (0.2 s), after which the runner looks the
        # waiting boards over again before its next answer at the latest.
        time.sleep(0.5)
    finally:
        release.set()

    everyone = [*alices, bobs]

    def first_robot_moves() -> list[int] | None:
        with post.sessions() as session:
            order = list(session.scalars(
                select(MoveRecord.board_number)
                .where(MoveRecord.board_number.in_(everyone), MoveRecord.number == 1)
                .order_by(MoveRecord.id)
            ))
        return order if len(order) == len(everyone) else None

    order: list[int] = wait_for(first_robot_moves, timeout=120)
    assert order[0] in alices  # the board the robot was already thinking about
    assert order.index(bobs) == 1, order
