"""The runner's policy, seen from the work it does off the mail path: what it decided on a
read that a player's move then overtook is not stored (the scheduler's reminder waits for
its next run) or is decided again on a fresh read (an operator's support case), and its
mails go out once, for what was stored."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select

from pbm_emergo.app import support
from pbm_emergo.app.results import Result
from pbm_emergo.app.runner import Ran, Work
from pbm_emergo.app.timers import Scheduler
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import games, players
from pbm_emergo.db.apply import apply
from pbm_emergo.db.models import Board, OutboundMessage
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.game.play import Play, decide_move

from .conftest import Game

ALICE, BOB = "alice@example.org", "bob@example.org"


def _board(game: Game, created: datetime) -> None:
    with game.factory.begin() as session:
        alice = players.create_player(session, "alice", "alice-pw", [ALICE], created)
        bob = players.create_player(session, "bob", "bob-pw", [BOB], created)
        games.create_board(session, alice, bob, created, nag_days=3, forfeit_days=10)


def _mails(game: Game) -> list[tuple[str, str]]:
    with game.factory() as session:
        rows = session.scalars(select(OutboundMessage).order_by(OutboundMessage.id))
        return [(row.recipient, row.subject) for row in rows]


def test_a_reminder_a_move_overtook_is_not_sent(game: Game) -> None:
    """The scheduler decides alice's reminder; she moves before it is stored: no reminder
    goes out and none is noted. Once bob has waited as long, his reminder goes."""
    created = game.now - timedelta(days=4)
    _board(game, created)
    moved: list[datetime] = []

    class Overtaken(Scheduler):
        def store(self, work: Work, now: datetime) -> Ran:
            if not moved:  # alice's mail lands between the scheduler's read and its write
                moved.append(now)
                _play(game, 0, now)
            return super().store(work, now)

    Overtaken(game.factory, game.config, clock=lambda: game.now).run_once()
    assert moved
    assert [subject for _, subject in _mails(game)] == []
    board = _board_row(game)
    assert board.ply == 1 and board.last_reminder_at is None
    later = game.now + timedelta(days=4)
    Scheduler(game.factory, game.config, clock=lambda: later).run_once()
    assert _mails(game) == [(BOB, "Nag: Emergo Board 101 bob")]
    assert _board_row(game).last_reminder_at == later


def _board_row(game: Game) -> Board:
    with game.factory() as session:
        board = games.get_board(session, 101)
        assert board is not None
        return board


def test_a_support_case_a_move_overtook_is_decided_again(game: Game) -> None:
    """The operator adjudicates board 101 for bob; alice's move lands between the case's
    read and its write: the adjudication is decided again on the board with her move, and
    the final board mail goes to each player once."""
    _board(game, game.now - timedelta(days=1))
    calls: list[int] = []

    def adjudicate(ctx: UnitOfWork) -> Result:
        result = support.adjudicate(ctx, 101, "bob", "alice asked for it")
        calls.append(1)
        if len(calls) == 1:
            _play(game, 0, ctx.now)
        return result

    result, ran = support.run_case(game.factory, game.config, adjudicate, game.now)
    assert len(calls) == 2 and ran.stored and not ran.conflicted
    assert result is not None and result.summary == "board 101: adjudicated, bob wins"
    board = _board_row(game)
    assert board.status == "finished" and board.winner == "black" and board.ply == 1
    assert sorted(to for to, _ in _mails(game)) == [ALICE, BOB]


def test_a_runner_gives_up_after_its_attempts(game: Game) -> None:
    """A case overtaken on every read is given up: nothing stored, no mail."""
    _board(game, game.now - timedelta(days=1))
    moves = iter([0, 1, 2, 3])

    def resign(ctx: UnitOfWork) -> Result:
        result = support.resign_board(ctx, 101, "bob", "bob asked for it")
        _play(game, next(moves), ctx.now)
        return result

    result, ran = support.run_case(game.factory, game.config, resign, game.now)
    assert result is None and ran.conflicted and not ran.stored
    board = _board_row(game)
    assert board.status == "active" and board.ply == 3
    assert _mails(game) == []


def _play(game: Game, ply: int, now: datetime) -> None:
    """The move ``ply + 1`` on board 101, by whoever is to move."""
    with game.factory.begin() as session:
        found = read_board(session, 101)
        assert found is not None
        snapshot = found.snapshot
        state = snapshot.state
        assert state.ply == ply
        seat = state.white if state.to_move == "white" else state.black
        move = str(state.position.legal_moves()[0])
        request = Play.parse(101, seat.id, seat.userid, move)
        apply(session, decide_move(snapshot, request, now).changes)
