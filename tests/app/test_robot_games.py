"""The robots' time shared among the people who play them: a cap on one player's active games
against the robots, checked again when the board is stored, and the runner taking the
waiting boards in turn by player rather than by board number."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from sqlalchemy.orm import Session

from pbm_emergo.app import challenges, play, robots
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import games
from pbm_emergo.db import players as players_db
from pbm_emergo.db.apply import apply
from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.db.session import read_sessions
from pbm_emergo.robot import Decision
from pbm_emergo.rules import Position

from .conftest import Game

ALICE = "alice@example.org"
BOB = "bob@example.org"


@pytest.fixture
def players(game: Game) -> Game:
    """alice and bob signed up, at most 3 active robot games each."""
    game.config = dataclasses.replace(game.config, robot_games_per_player=3)
    sign_up(game)
    return game


def sign_up(game: Game) -> None:
    """alice and bob, their addresses registered."""
    with game.factory.begin() as session:
        for userid, address in (("alice", ALICE), ("bob", BOB)):
            players_db.create_player(session, userid, f"{userid}pw", [address], game.now)


def challenge(game: Game, white: str, black: str, sender: str) -> int:
    result = game.run(lambda unit: challenges.challenge(unit, white, black), sender=sender)
    return int(result.summary.split()[-1])


def test_a_player_has_at_most_the_setting_of_active_robot_games(players: Game) -> None:
    started = [challenge(players, "alice", robot, ALICE)
               for robot in ("robot1", "robot2", "robot3")]  # fmt: skip
    with pytest.raises(Refused) as refused:
        challenge(players, "robot1", "alice", ALICE)
    assert refused.value.reason.startswith(
        f"alice has 3 active games against the robots (boards {started[0]}, {started[1]}, "
        f"{started[2]}), and 3 is the most one player may have at a time, so no board was "
        "started."
    )
    assert "finish or resign one of those games, then challenge again" in refused.value.reason
    with players.factory() as session:
        assert games.last_board_number(session) == started[-1]
    # The cap is per player and only for robots: bob still plays the robots, alice people.
    challenge(players, "bob", "robot3", BOB)
    challenge(players, "alice", "bob", ALICE)
    # A game over frees its place.
    players.run(lambda unit: _play(unit, started[0], "alice", "resign"))
    challenge(players, "robot1", "alice", ALICE)


def test_no_robot_games_when_the_setting_is_zero(players: Game) -> None:
    players.config = dataclasses.replace(players.config, robot_games_per_player=0)
    with pytest.raises(Refused, match="Games against the robots are not open"):
        challenge(players, "alice", "robot1", ALICE)


def test_two_mails_at_once_cannot_both_take_the_last_place(players: Game) -> None:
    challenge(players, "alice", "robot1", ALICE)
    challenge(players, "alice", "robot2", ALICE)
    # Two mails read the count (2 of 3) before either stored its board.
    reads = read_sessions(players.factory)
    with reads() as first_read, reads() as second_read:
        first = _unit(players, first_read)
        second = _unit(players, second_read)
        challenges.challenge(first, "alice", "robot3")
        challenges.challenge(second, "robot3", "alice")
        _apply(players, first)
        with pytest.raises(Conflict, match="Another robot game started meanwhile"):
            _apply(players, second)  # the mail starts over, and then is refused
    with players.factory() as session:
        assert len(games.active_boards_against(session, _id(session, "alice"), [
            _id(session, name) for name in ("robot1", "robot2", "robot3")
        ])) == 3


def _unit(game: Game, session: Session) -> UnitOfWork:
    return UnitOfWork(session=session, config=game.config, now=game.now, sender=ALICE)


def _apply(game: Game, unit: UnitOfWork) -> None:
    with game.factory.begin() as session:
        apply(session, unit.writes)


def _id(session: Session, userid: str) -> int:
    return players_db.active_ids_by_key(session, [userid])[userid][0]


def _play(unit: UnitOfWork, number: int, userid: str, move: str) -> Result:
    """``move`` (or ``resign``) played by ``userid`` on board ``number``, read as values."""
    read = read_board(unit.session, number)
    assert read is not None
    account = next(a for a in read.accounts if a.userid == userid)
    return play.play(unit, account, read.snapshot, move)


# --- the runner's order ------------------------------------------------------------------


def first_legal(position: Position, *args: Any, **kwargs: Any) -> Decision:
    """A robot that plays at once: the first legal move."""
    return Decision(position.legal_moves()[0], 0, 1, 1, 0.0)


def runner(game: Game, answered: list[int]) -> robots.RobotRunner:
    def think(position: Position, level: int, seconds: float, seed: int,
              **kwargs: Any) -> Decision:
        answered.append(seed // 1000)  # the seed is the board number * 1000 + its ply
        return first_legal(position)

    return robots.RobotRunner(
        game.factory, game.config, seconds=1.0, think_with=think, poll_seconds=0.0
    )


def test_one_players_many_boards_do_not_hold_up_anothers(game: Game) -> None:
    """alice has ten boards waiting for a robot, bob (who came last) one: bob's robot
    answer comes second, not eleventh; then the robots go on in turn."""
    game.config = dataclasses.replace(game.config, robot_games_per_player=10)
    sign_up(game)
    alices = [challenge(game, ("robot1", "robot2", "robot3")[n % 3], "alice", ALICE)
              for n in range(10)]  # fmt: skip
    bobs = challenge(game, "robot1", "bob", BOB)
    answered: list[int] = []
    assert runner(game, answered).run_once() == 11
    assert answered[:2] == [alices[0], bobs]
    assert sorted(answered) == sorted([*alices, bobs])


def test_the_runner_takes_players_in_turn(game: Game) -> None:
    """The player the robots answered least recently goes first."""
    sign_up(game)
    alices = [challenge(game, "robot1", "alice", ALICE) for _ in range(3)]
    bobs = [challenge(game, "robot2", "bob", BOB) for _ in range(2)]
    answered: list[int] = []
    assert runner(game, answered).run_once() == 5
    assert answered == [alices[0], bobs[0], alices[1], bobs[1], alices[2]]


def test_of_one_players_boards_the_one_waiting_longest_goes_first(game: Game) -> None:
    sign_up(game)
    alice_to_move = challenge(game, "alice", "robot1", ALICE)
    waiting_longer = challenge(game, "robot2", "alice", ALICE)
    game.run(lambda unit: _play(unit, alice_to_move, "alice", "e4"))
    answered: list[int] = []
    assert runner(game, answered).run_once() == 2
    assert answered == [waiting_longer, alice_to_move]
