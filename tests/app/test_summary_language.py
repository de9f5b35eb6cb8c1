"""A ``multiple`` report's one-line summaries in the reader's language (here Dutch): the
operations give their summary in English for the operator's logs and in the sender's
language for the report, the moves' and votes' summaries being reason values of the game."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pbm_emergo.app import challenges, membership, play
from pbm_emergo.app.multiple import report
from pbm_emergo.app.results import Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db.reads.accounts import read_account
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.game.play import Play, decide_move
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said
from tests.game.boards import ALICE as ALICE_SEAT
from tests.game.boards import NOW, snapshot

from .conftest import Game

ALICE = "alice@example.org"
BOB = "bob@example.org"


@dataclass
class Line:
    """One line's outcome, as the report reads it."""

    line: str
    ok: bool
    summary: str
    text: str | None
    summary_said: str | None = None


def move(unit: UnitOfWork, userid: str, text: str) -> Result:
    player = read_account(unit.session, userid)
    found = read_board(unit.session, 101)
    assert player is not None and found is not None
    return play.play(unit, player, found.snapshot, text)


@pytest.fixture
def players(game: Game) -> Game:
    game.run(lambda unit: membership.signup(unit, "alice", "alicepw"), sender=ALICE, proven=True)
    game.run(lambda unit: membership.signup(unit, "bob", "bobpw"), sender=BOB, proven=True)
    return game


def test_the_operations_say_their_summary_in_dutch_and_log_it_in_english(
    players: Game,
) -> None:
    with i18n.speaking("nl"):
        started = players.run(
            lambda unit: challenges.challenge(unit, "alice", "bob", ["-unrated"]), sender=ALICE
        )
        moved = players.run(lambda unit: move(unit, "alice", "a5"))
        offered = players.run(lambda unit: move(unit, "bob", "propose"))
        resigned = players.run(lambda unit: move(unit, "alice", "resign"))
    assert (started.summary, started.summary_said) == ("started board 101", "bord 101 begonnen")
    assert (moved.summary, moved.summary_said) == (
        "played a5 on board 101",
        "a5 gespeeld op bord 101",
    )
    assert (offered.summary, offered.summary_said) == (
        "offered a draw on board 101",
        "remise aangeboden op bord 101",
    )
    assert (resigned.summary, resigned.summary_said) == (
        "resigned on board 101",
        "opgegeven op bord 101",
    )


def test_the_game_gives_a_move_summary_as_a_value_said_in_each_language() -> None:
    decision = decide_move(snapshot([]), Play.parse(101, ALICE_SEAT.id, "alice", "e4", ""), NOW)
    assert str(decision.summary) == "played e4 on board 101"
    with i18n.speaking("nl"):
        assert said(decision.summary) == "e4 gespeeld op bord 101"
    with i18n.speaking("de"):
        assert said(decision.summary) == "e4 auf Brett 101 gespielt"


def test_the_report_shows_the_dutch_summary_and_the_english_where_there_is_none() -> None:
    lines = [
        Line(
            "emergo move 101 alice ******** e4",
            True,
            "played e4 on board 101",
            None,
            summary_said="e4 gespeeld op bord 101",
        ),
        Line("emergo show 101", True, "sent board 101", None),
    ]
    with i18n.speaking("nl"):
        text = report(lines, [], str, limit=50, ignored=0, stopped_at=None, failed=0)
    assert "  > emergo move 101 alice ******** e4\n  e4 gespeeld op bord 101\n" in text
    assert "played e4" not in text
    assert "  > emergo show 101\n  sent board 101\n" in text
    english = report(lines[1:], [], str, limit=50, ignored=0, stopped_at=None, failed=0)
    assert "  > emergo show 101\n  sent board 101\n" in english
