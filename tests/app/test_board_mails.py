"""Who gets a board mail after a change, and what each sees: drawn from values alone
(:func:`pbm_emergo.app.boards.board_mails_for`), no database."""

from __future__ import annotations

import dataclasses

from pbm_emergo.app.boards import board_mails_for
from pbm_emergo.app.messages import Reply
from pbm_emergo.config import Config
from pbm_emergo.db.reads.watchers import Watcher
from pbm_emergo.game.board import BoardState
from pbm_emergo.rules import Termination
from tests.game.boards import BOB, NOW, snapshot

CONFIG = Config(address="pbmserv@emergo.test", web_url="https://emergo.test")
CAROL = Watcher(3, "carol", "carol@example.org", "diagram", None)
DAVE = Watcher(4, "dave", "dave@example.org", "list", "de")
ALICE_AT, BOB_AT, CAROL_AT, DAVE_AT = (
    "alice@example.org", "bob@example.org", "carol@example.org", "dave@example.org"
)


def _state(moves: tuple[str, ...] = ("e4",), **changes: object) -> BoardState:
    return dataclasses.replace(snapshot(moves).state, **changes)  # type: ignore[arg-type]


def _to(mails: list[Reply]) -> list[str]:
    return [m.to for m in mails]


def test_the_players_and_the_watchers_each_get_one_mail() -> None:
    mails = board_mails_for(
        _state(), [CAROL, DAVE], config=CONFIG, now=NOW, sender=ALICE_AT
    )
    assert _to(mails) == [ALICE_AT, BOB_AT, CAROL_AT, DAVE_AT]
    # The players asked for their game's mail; the watchers for what they subscribed to.
    assert all(m.solicited for m in mails)
    assert all(m.subject == "Emergo Board 101 bob" for m in mails)
    assert "https://emergo.test/boards/101" in mails[0].body


def test_a_comment_goes_to_the_players_only() -> None:
    mails = board_mails_for(
        _state(), [CAROL], config=CONFIG, now=NOW, sender=ALICE_AT,
        comment="Your move, Bob", commenter="alice",
    )
    assert sorted(_to(mails)) == sorted([ALICE_AT, BOB_AT, CAROL_AT])
    by_address = {m.to: m for m in mails}
    assert "Your move, Bob" in by_address[BOB_AT].body
    assert by_address[BOB_AT].subject.endswith(" **")
    assert "Your move, Bob" not in by_address[CAROL_AT].body
    assert not by_address[CAROL_AT].subject.endswith(" **")


def test_a_watcher_who_asked_for_words_gets_them_in_their_language() -> None:
    mails = board_mails_for(
        _state(), [CAROL, DAVE], config=CONFIG, now=NOW, sender=ALICE_AT
    )
    by_address = {m.to: m for m in mails}
    assert by_address[DAVE_AT].body != by_address[CAROL_AT].body
    assert by_address[CAROL_AT].body == by_address[ALICE_AT].body
    assert "Brett" in by_address[DAVE_AT].body  # German: the board is the "Brett"


def test_a_player_with_a_digest_gets_no_mail_of_the_others_move() -> None:
    bob = dataclasses.replace(BOB, digest=True)
    mails = board_mails_for(
        _state(black=bob), [], config=CONFIG, now=NOW, sender=ALICE_AT
    )
    assert _to(mails) == [ALICE_AT]
    # Their own move's mail still comes at once.
    mails = board_mails_for(
        _state(black=bob), [], config=CONFIG, now=NOW, sender=BOB_AT
    )
    assert _to(mails) == [ALICE_AT, BOB_AT]


def test_a_new_boards_first_mail_to_the_opponent_is_not_one_they_asked_for() -> None:
    mails = board_mails_for(
        _state(()), [], config=CONFIG, now=NOW, sender=ALICE_AT, new_board=True
    )
    assert [(m.to, m.solicited) for m in mails] == [
        (ALICE_AT, False), (BOB_AT, False),
    ]
    assert all(m.subject == "New Emergo Board 101 alice" for m in mails)


def test_the_last_mail_of_a_game_carries_its_record() -> None:
    over = snapshot(("e4",), finished=("white", Termination.RESIGNED)).state
    [alice, bob, carol] = board_mails_for(
        over, [CAROL], config=CONFIG, now=NOW, sender=BOB_AT
    )
    assert alice.subject == "Emergo Board 101 Game over"
    assert alice.attachment is not None and carol.attachment == alice.attachment
    during = board_mails_for(_state(), [], config=CONFIG, now=NOW, sender="")
    assert all(m.attachment is None for m in during)


def test_an_address_gets_one_mail_however_often_and_however_spelt_it_comes() -> None:
    # Bob watches his own board under his address in capitals; Carol subscribed twice.
    bob_watching = Watcher(2, "bob", BOB_AT.upper(), "diagram", None)
    mails = board_mails_for(
        _state(), [bob_watching, CAROL, CAROL], config=CONFIG, now=NOW, sender=ALICE_AT
    )
    assert _to(mails) == [ALICE_AT, BOB_AT, CAROL_AT]


def test_a_watcher_in_another_language_gets_the_board_without_the_comment_in_it() -> None:
    mails = board_mails_for(
        _state(), [CAROL, DAVE], config=CONFIG, now=NOW, sender=ALICE_AT,
        comment="Your move, Bob", commenter="alice",
    )
    by_address = {m.to: m for m in mails}
    assert "Brett" in by_address[DAVE_AT].body
    assert "Your move, Bob" not in by_address[DAVE_AT].body
    assert "Your move, Bob" not in (by_address[DAVE_AT].html or "")
    assert by_address[DAVE_AT].subject == "Emergo Board 101 bob"
    # Both players' mails carry it, in the same words.
    assert by_address[ALICE_AT].body == by_address[BOB_AT].body
    assert "Your move, Bob" in by_address[ALICE_AT].body
