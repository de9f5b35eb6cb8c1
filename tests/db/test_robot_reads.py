"""What the robots' runner reads, as values (``db/reads/robots.py``): the active boards with a
robot on them and their voters in one statement, one board as a robot's task reads it with
its open votes in one statement, and a take-back request's moves in one more; so looking
the boards over takes two statements (with the robot accounts), and a task one, or two for
a take-back."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app import robots
from pbm_emergo.config import Config
from pbm_emergo.db import games
from pbm_emergo.db.reads.robots import moves_played, robot_boards, task_board
from pbm_emergo.db.session import read_sessions
from pbm_emergo.game.board import OpenVote
from pbm_emergo.robot import Decision
from pbm_emergo.rules import Position
from tests.support.mailer import Mailer
from tests.support.statements import recorded_statements


def first_legal(position: Position, *args: Any, **kwargs: Any) -> Decision:
    """A robot that plays at once: the first legal move."""
    return Decision(position.legal_moves()[0], 0, 1, 1, 0.0)


class Boards:
    """alice and bob, and boards against the robots: 101 robot1-alice, alice's draw offer
    open; 102 robot2-alice, alice's take-back request open; 103 robot3-bob, bob to move;
    104 robot3-bob, robot3 to move; 105 alice-bob."""

    def __init__(self, runner: robots.RobotRunner, alice: int, bob: int) -> None:
        self.runner = runner
        self.alice = alice
        self.bob = bob


@pytest.fixture
def boards(
    db_sessions: sessionmaker[Session], db_config: Config, quick_argon2: None
) -> Boards:
    mailer = Mailer(db_sessions, db_config)
    mailer.signup("alice", "alicepw", "alice@example.org")
    mailer.signup("bob", "bobpw", "bob@example.org")
    mailer.send("emergo challenge robot1 alice")
    mailer.send("emergo challenge robot2 alice")
    mailer.send("emergo challenge robot3 bob", sender="bob@example.org")
    runner = robots.RobotRunner(
        db_sessions, db_config, seconds=1.0, think_with=first_legal, poll_seconds=0.0
    )
    assert runner.run_once() == 3
    mailer.move(101, "alice", "propose")
    mailer.move(102, "alice", str(_position(db_sessions, 102).legal_moves()[0]))
    assert runner.run_once() == 2  # 101: the draw offer turned down; 102: a move
    mailer.move(101, "alice", "propose")
    mailer.move(102, "alice", "undo")
    mailer.send("emergo challenge robot3 bob", sender="bob@example.org")
    mailer.send("emergo challenge alice bob")
    with read_sessions(db_sessions)() as session:
        board = task_board(session, 105)
        assert board is not None
        return Boards(runner, board.white_player_id, board.black_player_id)


def _position(factory: sessionmaker[Session], number: int) -> Position:
    with read_sessions(factory)() as session:
        board = task_board(session, number)
        assert board is not None
        return Position.from_text(board.position)


def test_the_boards_with_a_robot_and_their_voters_in_one_statement(
    boards: Boards, db_sessions: sessionmaker[Session], db_engine: Engine
) -> None:
    with read_sessions(db_sessions)() as session:
        ids = robots.robot_players(session)
        with recorded_statements(db_engine, selects=True) as seen:
            found = robot_boards(session, ids)
        assert len(seen) == 1, seen
        assert [b.number for b in found] == [101, 102, 103, 104]
        assert [b.voters for b in found] == [
            frozenset({boards.alice}), frozenset({boards.alice}), frozenset(), frozenset()
        ]
        assert [(b.ply, b.to_move) for b in found] == [
            (1, "black"), (3, "black"), (1, "black"), (0, "white")
        ]
        # Since the last move, else the start.
        stored = games.get_board(session, 104)
        assert stored is not None and found[3].idle_since == stored.created_at
        stored = games.get_board(session, 102)
        assert stored is not None and found[1].idle_since == stored.last_move_at
        with recorded_statements(db_engine, selects=True) as seen:
            assert robot_boards(session, []) == []
        assert seen == []


def test_a_board_as_a_task_reads_it_with_its_votes_in_one_statement(
    boards: Boards, db_sessions: sessionmaker[Session], db_engine: Engine
) -> None:
    with read_sessions(db_sessions)() as session:
        with recorded_statements(db_engine, selects=True) as seen:
            offered = task_board(session, 101)
            playing = task_board(session, 104)
            missing = task_board(session, 999)
        assert len(seen) == 3, seen
        assert offered is not None and playing is not None and missing is None
        assert offered.votes == (OpenVote("draw", boards.alice, 1),)
        assert playing.votes == ()
        stored = games.get_board(session, 101)
        assert stored is not None
        assert (offered.status, offered.ply, offered.to_move, offered.position) == (
            stored.status, stored.ply, stored.to_move, stored.position
        )
        assert offered.repetition == tuple(
            stored.repetition.split(games.REPETITION_SEPARATOR)
        )
        assert (offered.white_player_id, offered.black_player_id) == (
            stored.white_player_id, stored.black_player_id
        )
        assert offered.blocked_rule == stored.blocked_rule
        moves = moves_played(session, 102)
        assert [m.number for m in moves] == [1, 2, 3]
        assert [m.notation for m in moves] == games.move_notations(session, 102)


def test_the_runner_reads_a_look_in_two_statements_and_a_task_in_one(
    boards: Boards, db_sessions: sessionmaker[Session], db_engine: Engine
) -> None:
    runner = boards.runner
    with recorded_statements(db_engine, selects=True) as seen:
        waiting = runner.look(set())
    assert len(seen) == 2, seen  # the robot accounts, the boards with their votes
    assert [w.number for w in waiting] == [101, 102, 104]
    with read_sessions(db_sessions)() as session:
        tasks = {}
        for number in (101, 103, 104):
            with recorded_statements(db_engine, selects=True) as seen:
                tasks[number] = robots.task_on(session, number, runner.robots)
            assert len(seen) == 1, seen
        draw, move = tasks[101], tasks[104]
        assert tasks[103] is None
        assert draw is not None and (draw.kind, draw.robot, draw.ply) == ("draw", "robot1", 1)
        assert move is not None and (move.kind, move.robot, move.robot_side) == (
            "move", "robot3", 0
        )
        # A take-back: the board's moves are read to replay the game to before alice's.
        with recorded_statements(db_engine, selects=True) as seen:
            undo = robots.task_on(session, 102, runner.robots)
        assert len(seen) == 2, seen
        assert undo is not None and (undo.kind, undo.robot, undo.ply) == ("undo", "robot2", 3)
        stored = games.get_board(session, 102)
        assert stored is not None
        assert undo.after_undo == games.load_game(session, stored, upto=1).position.to_text()
