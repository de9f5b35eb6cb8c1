"""The shell's resolvers of what every game request shares (app/resolve.py): the board a
request names and its login, on a real database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from pbm_emergo.app import resolve
from pbm_emergo.app.context import Context
from pbm_emergo.app.results import Refused
from pbm_emergo.commands.language import LANGUAGE
from pbm_emergo.db import players
from pbm_emergo.db.session import read_sessions
from pbm_emergo.game.requests import BoardRef
from pbm_emergo.game.words import Known
from tests.support.mailer import Mailer


@contextmanager
def bound(
    mailer: Mailer, line: str, sender: str = "bob@example.org"
) -> Iterator[tuple[Context, Any]]:
    """The request of ``line``, and a unit of work in a reading session to resolve it in."""
    request = LANGUAGE.request(line, Known(), alone=True)
    with read_sessions(mailer.factory)() as session:
        ctx = Context(session=session, config=mailer.config, now=mailer.now, sender=sender)
        yield ctx, request


def test_the_board_resolver_refuses_a_missing_board(game: Mailer) -> None:
    with (
        bound(game, "emergo chat 999 bob bobpw") as (ctx, request),
        pytest.raises(Refused) as refused,
    ):
        resolve.board_read(ctx, request.board)
    assert refused.value.reason == "There is no board 999."
    with bound(game, "emergo chat 101 bob bobpw") as (ctx, request):
        read = resolve.board_read(ctx, request.board)
        assert (read.snapshot.number, request.board.upto) == (101, None)


def test_the_board_resolver_refuses_a_move_number_where_none_is_taken(game: Mailer) -> None:
    game.move(101, "alice", "e4")
    with bound(game, "emergo chat 101#1 bob bobpw") as (ctx, request):
        # Taken where the request reads it.
        assert resolve.board_read(ctx, request.board).snapshot.number == 101
        assert request.board.upto == 1
        with pytest.raises(Refused) as refused:
            resolve.board_read(ctx, request.board, alone=True)
    assert refused.value.reason == "Write the board number alone: emergo chat 101 USERID PASSWORD."
    assert refused.value.board == 101
    # A request words the refusal its own way.
    with (
        bound(game, "emergo move 101#1 bob bobpw e5") as (ctx, request),
        pytest.raises(Refused) as refused,
    ):
        resolve.board_read(
            ctx, BoardRef(request.board, request.upto),
            alone=lambda number, ply, upto: f"{number} then {upto} (of {ply})",
        )
    assert refused.value.reason == "101 then 1 (of 1)"


def test_the_move_resolvers_read_the_board_and_log_in_on_values(game: Mailer) -> None:
    # A move's board is read once, as values (its snapshot and its players' accounts), and
    # its login looks at those accounts first: a seated player, an unseated one (read from
    # the database), and a wrong password, refused with its count to store.
    game.move(101, "alice", "e4")
    with bound(game, "emergo move 101 bob bobpw e5") as (ctx, request):
        read = resolve.board_read(ctx, BoardRef(request.board, request.upto))
        state = read.snapshot.state
        assert (state.number, state.ply, [m.label for m in state.moves]) == (101, 1, ["e4"])
        assert [a.userid for a in read.accounts] == ["alice", "bob"]
        assert read.accounts[1].addresses == ("bob@example.org",)
        assert resolve.login_seated(ctx, "bob", request.password, read).userid == "bob"
    with (
        bound(game, "emergo move 101 bob wrong e5") as (ctx, request),
        pytest.raises(Refused) as refused,
    ):
        read = resolve.board_read(ctx, BoardRef(request.board, request.upto))
        resolve.login_seated(ctx, "bob", request.password, read)
    assert refused.value.reason == "Wrong password for bob."
    assert refused.value.writes
    with (
        bound(game, "emergo move 101 nobody pw e5") as (ctx, request),
        pytest.raises(Refused) as refused,
    ):
        read = resolve.board_read(ctx, BoardRef(request.board, request.upto))
        resolve.login_seated(ctx, "nobody", request.password, read)
    assert refused.value.reason.startswith("There is no player 'nobody'")


def test_the_login_resolver_counts_a_wrong_password_once(game: Mailer) -> None:
    with bound(game, "emergo seek bob wrong") as (ctx, request), pytest.raises(Refused) as refused:
        resolve.login(ctx, request)
    assert refused.value.reason == "Wrong password for bob."
    assert refused.value.writes  # the count, stored by the caller
    with bound(game, "emergo seek bob bobpw") as (ctx, request):
        assert resolve.login(ctx, request).userid == "bob"
    # Through the whole mail, the password checked ahead of the write transaction too.
    reply = game.one("emergo chat 101 bob wrong", "Hello", sender="bob@example.org")
    assert reply.subject == "Emergo Board 101 Error"
    with game.factory() as session:
        bob = players.find_player(session, "bob")
        assert bob is not None
        assert [f.count for f in players.login_failures_of(session, bob.id).values()] == [1]
