"""The game's operations called with plain values, no mail in between: accounts, a
challenge, moves, a resignation, and the refusals on the way. An operation on a player's
behalf takes the player read as values without a password, as the robots and the
scheduler find theirs; checking a password (a login) is the mail commands' part, and its
own step here."""

from __future__ import annotations

import pytest

from pbm_emergo.app import accounts, challenges, membership, play, vacations
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import games
from pbm_emergo.db.models import BOARD_ACTIVE, BOARD_FINISHED
from pbm_emergo.db.reads.snapshot import PlayerRead, read_board, read_player

from .conftest import Game

ALICE = "alice@example.org"
BOB = "bob@example.org"


def player_read(unit: UnitOfWork, userid: str) -> PlayerRead:
    """The player as values, without a password."""
    found = read_player(unit.session, userid)
    assert found is not None
    return found


def move(unit: UnitOfWork, userid: str, text: str) -> Result:
    """``text`` played by ``userid`` on board 101."""
    found = read_board(unit.session, 101)
    assert found is not None
    return play.play(unit, player_read(unit, userid).account, found.snapshot, text)


@pytest.fixture
def players(game: Game) -> Game:
    """alice (password alicepw) and bob (bobpw), each signed up from their own address
    (proven by our MTA, so registered at once)."""
    game.run(lambda unit: membership.signup(unit, "alice", "alicepw"), sender=ALICE, proven=True)
    game.run(lambda unit: membership.signup(unit, "bob", "bobpw"), sender=BOB, proven=True)
    return game


def test_signup_registers_the_proven_sender_and_refuses_a_taken_userid(game: Game) -> None:
    result = game.run(
        lambda unit: membership.signup(unit, "alice", "alicepw"), sender=ALICE, proven=True
    )
    assert result.summary == "created the account alice"
    assert result.answer_subject == "Emergo: welcome alice"
    with pytest.raises(Refused, match="The userid alice is already taken"):
        game.run(lambda unit: membership.signup(unit, "alice", "otherpw"), sender=BOB)


def test_challenge_moves_and_resignation(players: Game) -> None:
    started = players.run(
        lambda unit: challenges.challenge(unit, "alice", "bob", ["-unrated"]), sender=ALICE
    )
    assert started.summary == "started board 101"
    assert sorted(reply.to for reply in started.replies) == [ALICE, BOB]
    assert {reply.subject for reply in started.replies} == {"New Emergo Board 101 alice"}

    moved = players.run(lambda unit: move(unit, "alice", "a5"))
    assert "a5" in moved.summary
    players.run(lambda unit: move(unit, "bob", "b4"))
    with pytest.raises(Refused, match="It is not your turn on board 101"):
        players.run(lambda unit: move(unit, "bob", "b6"))
    with pytest.raises(Refused, match="Board 101 is at move 3, not move 7"):
        players.run(lambda unit: move(unit, "alice", "a6#7"))

    resigned = players.run(lambda unit: move(unit, "alice", "resign"))
    assert resigned.summary == "resigned on board 101"
    assert all("alice resigned." in reply.body for reply in resigned.replies)
    with players.factory() as session:
        board = games.get_board(session, 101)
        assert board is not None
        assert board.status == BOARD_FINISHED
        assert board.winner == "black"
        assert not board.rated


def test_a_challenge_comes_from_a_registered_address(players: Game) -> None:
    with pytest.raises(Refused, match="Only alice or bob can start this game"):
        players.run(
            lambda unit: challenges.challenge(unit, "alice", "bob"), sender="eve@example.org"
        )
    with pytest.raises(Refused, match="Unknown option '-fast'"):
        players.run(lambda unit: challenges.challenge(unit, "alice", "bob", ["-fast"]), ALICE)
    with players.factory() as session:
        assert games.get_board(session, 101) is None


def test_a_refused_challenge_and_a_sought_game(players: Game) -> None:
    players.run(
        lambda unit: challenges.reject_challenges(unit, player_read(unit, "bob")), sender=BOB
    )
    with pytest.raises(Refused, match="bob does not accept challenges at the moment"):
        players.run(lambda unit: challenges.challenge(unit, "alice", "bob"), sender=ALICE)

    policy = players.run(
        lambda unit: challenges.limit_challenges(unit, player_read(unit, "bob"), 1)
    )
    assert policy.summary == (
        "bob accepts challenges while they have fewer than 1 active board (now 0)"
    )
    players.run(lambda unit: challenges.seek(unit, player_read(unit, "bob").account, 2))
    assert "bob" in (players.run(challenges.seekers).answer or "")

    players.run(lambda unit: challenges.challenge(unit, "alice", "bob"), sender=ALICE)
    with players.factory() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.status == BOARD_ACTIVE
        assert board.black_player.seeking == 1  # the challenge answered one game sought
    with pytest.raises(Refused, match="bob plays as many games as they want"):
        players.run(lambda unit: challenges.challenge(unit, "bob", "alice"), sender=ALICE)


def test_a_vacation_is_taken_and_ends_early(players: Game) -> None:
    result = players.run(lambda unit: vacations.set_vacation(unit, player_read(unit, "bob"), 5))
    assert result.summary.startswith("bob is on vacation until ")
    ended = players.run(lambda unit: vacations.set_vacation(unit, player_read(unit, "bob"), None))
    assert ended.summary == "ended the vacation of bob"
    with pytest.raises(Refused, match="bob is not on vacation"):
        players.run(lambda unit: vacations.set_vacation(unit, player_read(unit, "bob"), None))


def test_a_login_checks_the_password_and_counts_a_wrong_one(players: Game) -> None:
    with pytest.raises(Refused) as refused:
        players.run(lambda unit: accounts.authenticate(unit, "bob", "wrong"), sender=BOB)
    assert refused.value.writes  # the wrong password is counted all the same (by its owner)
    found = players.run(
        lambda unit: accounts.authenticate(unit, "bob", "bobpw").userid, sender=BOB
    )
    assert found == "bob"
