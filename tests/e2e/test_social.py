"""By mail: standings and history, chat and message, subscribe and notify, seek and
accept/reject/limit, a declined board, the ` **` mark, and commands in the body of a reply.

Through the real listener (smtplib), the real workers and command layer, and a real aiosmtpd
relay receiving every mail the server sends (the Post fixture of the account security
tests); SQLite and PostgreSQL.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from sqlalchemy import select

from pbm_emergo.db.models import Board, InboundMessage, Player
from tests.support.leaks import assert_nowhere
from tests.support.post import ALICE, BOB, RATED_OPENING, Post, challenge, subjects, text

CAROL, DAVE = "carol@example.org", "dave@example.org"
PW = {"alice": "alice-pw1", "bob": "bob-pw1", "carol": "carol-pw1", "dave": "dave-pw1"}


def play(post: Post, board: int, *moves: tuple[str, str]) -> None:
    """Each (userid, move) in turn; every one must be played."""
    for userid, notation in moves:
        mails = post.send(f"emergo move {board} {userid} {PW[userid]} {notation}",
                          f"{userid}@example.org")  # fmt: skip
        assert mails and not any("Error" in str(m["Subject"]) for m in mails), subjects(mails)


def signup(post: Post, *userids: str) -> None:
    for userid in userids:
        post.signup(userid, PW[userid], f"{userid}@example.org")


def rating_of(post: Post, userid: str) -> int:
    with post.sessions() as session:
        return session.scalars(select(Player.rating).where(Player.userid_key == userid)).one()


def test_standings_and_history_match_the_game_over_mails(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = challenge(post)
    play(post, board, *zip(("alice", "bob") * 4, RATED_OPENING, strict=True))
    over = post.send(f"emergo resign {board} bob {PW['bob']}", BOB)
    assert subjects(over) == [(ALICE, f"Emergo Board {board} Game over"),
                              (BOB, f"Emergo Board {board} Game over")]  # fmt: skip
    assert "Rating changes: alice 1600 -> 1762 (+162), bob 1600 -> 1438 (-162)." in text(over[0])
    table = text(post.one("emergo standings", DAVE))
    assert "Provisional players (rating deviation above 110):" in table
    assert "    1  alice              1762  290     1     0     0      0       -\n" in table
    assert "    2  bob                1438  290     0     1     0      0       -\n" in table
    assert (rating_of(post, "alice"), rating_of(post, "bob")) == (1762, 1438)
    only_bob = post.one("emergo ratings bob", DAVE)
    assert str(only_bob["Subject"]) == "Emergo standings"
    assert "alice" not in text(only_bob).split("Provisional players")[1]
    history = text(post.one("emergo history alice", DAVE))
    # Two lines a game: the date, board and players, then the result and the points.
    lines = history.splitlines()
    [at] = [n for n, x in enumerate(lines) if x[:4].isdigit()]
    line = f"{lines[at]} {lines[at + 1]}"
    assert line.split()[1:] == [str(board), "alice", "-", "bob", "alice", "won", "(resigned);",
                                "alice", "+162,", "bob", "-162"]  # fmt: skip
    # Error paths: unknown players (maybe passwords typed in the wrong place: masked).
    for command in ("emergo history nobody99", "emergo standings nobody99"):
        unknown = post.one(command, DAVE)
        assert str(unknown["Subject"]) == "Emergo error"
        assert text(unknown).startswith("There is no player by that name.")
        assert "nobody99" not in text(unknown)


def test_declining_a_new_board_removes_it_and_tells_both(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = challenge(post)
    play(post, board, ("alice", "e4"))
    mails = post.send(f"emergo move {board} bob {PW['bob']} resign", BOB, body="Not now.")
    assert subjects(mails) == [(ALICE, f"Emergo Board {board} declined"),
                               (BOB, f"Emergo Board {board} declined")]  # fmt: skip
    assert text(mails[0]).startswith(f"bob declined the game on Emergo Board {board}")
    assert "bob writes:\n  Not now." in text(mails[0])
    with post.sessions() as session:
        assert session.get(Board, board) is None
    assert (rating_of(post, "alice"), rating_of(post, "bob")) == (1600, 1600)
    assert "None yet." in text(post.one("emergo history", DAVE))
    # Not reused: the next board gets the next number.
    assert challenge(post) == board + 1
    # Error paths: a wrong password, someone not on the board: nothing is declined.
    wrong = post.one(f"emergo resign {board + 1} bob wrong-pw9", BOB)
    assert str(wrong["Subject"]) == f"Emergo Board {board + 1} Error"
    assert post.board(board + 1).status == "active"


def test_chat_and_message(make_post: Callable[..., Post]) -> None:
    post = make_post()
    signup(post, "carol")
    board = challenge(post)
    chat = post.send(f"emergo chat {board} bob {PW['bob']}", BOB, body="Good luck!\n-- \nB")
    assert subjects(chat) == [(ALICE, f"Emergo chat {board} bob"),
                              (BOB, f"Emergo chat {board} bob")]  # fmt: skip
    assert "  Good luck!\n" in text(chat[0]) and PW["bob"] not in text(chat[0])
    stranger = post.one(f"emergo chat {board} carol {PW['carol']}", CAROL, body="Buy now")
    assert "Only the players of board" in text(stranger)
    wrong = post.one(f"emergo chat {board} carol not-hers1", CAROL, body="hi")
    assert str(wrong["Subject"]) == f"Emergo Board {board} Error"
    nowhere = post.one(f"emergo chat 999 carol {PW['carol']}", CAROL, body="hi")
    assert text(nowhere).startswith("There is no board 999.")

    message = post.send(f"message carol {PW['carol']} bob nobody99", CAROL, body="Rematch?")
    assert subjects(message) == [(BOB, "Message from carol"), (CAROL, "Emergo: message sent")]
    assert "  Rematch?\n" in text(message[0]) and CAROL not in text(message[0])
    sent = text(message[1])
    assert sent.startswith("Your message went to bob.") and "It did not go to nobody99" in sent
    assert BOB not in sent
    nobody = post.one(f"message carol {PW['carol']} nobody99", CAROL, body="Rematch?")
    assert text(nobody).startswith("Nobody got your message")
    wrong = post.one("message carol not-hers1 bob", CAROL, body="Rematch?")
    assert str(wrong["Subject"]) == "Emergo error" and "not-hers1" not in text(wrong)


def test_subscribers_and_notices(make_post: Callable[..., Post]) -> None:
    post = make_post()
    signup(post, "carol", "dave")
    board = challenge(post)
    watching = post.one(f"emergo subscribe {board} carol {PW['carol']}", CAROL)
    assert str(watching["Subject"]) == "Emergo subscriptions of carol"
    assert f"carol watches board {board}." in text(watching)
    notices = post.one(f"emergo notify dave {PW['dave']}", DAVE)
    assert text(notices).startswith("On: the final board mail of every finished game.")
    moved = post.send(f"emergo move {board} alice {PW['alice']} e4", ALICE)
    assert sorted(str(m["To"]) for m in moved) == [ALICE, BOB, CAROL]
    play(post, board, ("bob", "e6"))
    over = post.send(f"emergo resign {board} alice {PW['alice']}", ALICE)
    assert subjects(over) == [(ALICE, f"Emergo Board {board} Game over"),
                              (BOB, f"Emergo Board {board} Game over"),
                              (CAROL, f"Emergo Board {board} Game over"),
                              (DAVE, f"Emergo Board {board} Game over")]  # fmt: skip
    # `sub all` covers boards started later; `unsub all` ends it.
    post.one(f"emergo sub all carol {PW['carol']}", CAROL)
    assert CAROL in [str(m["To"]) for m in post.send("emergo challenge alice bob", ALICE)]
    gone = post.one(f"emergo unsub all carol {PW['carol']}", CAROL)
    assert "carol watches no board." in text(gone)
    assert CAROL not in [str(m["To"]) for m in post.send("emergo challenge alice bob", ALICE)]
    # Error paths.
    over_already = post.one(f"emergo subscribe {board} carol {PW['carol']}", CAROL)
    assert text(over_already).startswith(f"The game on board {board} is over")
    wrong = post.one(f"emergo subscribe {board + 1} carol not-hers1", CAROL)
    assert str(wrong["Subject"]) == f"Emergo Board {board + 1} Error"
    assert text(post.one(f"emergo unsubscribe {board + 1} carol {PW['carol']}", CAROL)).startswith(
        f"carol is not subscribed to board {board + 1}."
    )
    assert "needs a board number or 'all'" in text(
        post.one(f"emergo subscribe everything carol {PW['carol']}", CAROL)
    )
    assert text(post.one(f"emergo notify dave {PW['dave']} 999", DAVE)).startswith(
        "There is no board 999."
    )


def test_seek_accept_reject_and_limit(make_post: Callable[..., Post]) -> None:
    post = make_post()
    seeking = post.one(f"emergo seek bob {PW['bob']} 2", BOB)
    assert text(seeking).startswith("bob is seeking 2 more games.")
    seeks = text(post.one("emergo seeks", DAVE))
    assert "bob                      2  1600 provisional      0\n" in seeks
    challenge(post)
    seeks = text(post.one("emergo seeks", DAVE))
    assert "bob                      1  1600 provisional      1\n" in seeks
    standings = text(post.one("emergo standings bob", DAVE))
    assert "  bob                1600  350     0     0     0      1       1\n" in standings
    # reject: the challenger is told, bob is not.
    post.one(f"emergo reject bob {PW['bob']}", BOB)
    before = len(post.received_by(BOB))
    refused = post.send("emergo challenge alice bob", ALICE)
    assert subjects(refused) == [(ALICE, "Emergo error")]
    assert text(refused[0]).startswith("bob does not accept challenges at the moment")
    assert len(post.received_by(BOB)) == before
    # limit 2: bob has one board; one more is accepted, the next refused.
    limit = post.one(f"emergo limit bob {PW['bob']} 2", BOB)
    assert text(limit).startswith("bob accepts challenges while they have fewer than 2")
    assert len(post.send("emergo challenge alice bob", ALICE)) == 2
    beyond = post.send("emergo challenge alice bob", ALICE)
    assert subjects(beyond) == [(ALICE, "Emergo error")]
    assert "(2 active boards)" in text(beyond[0])
    post.one(f"emergo accept bob {PW['bob']}", BOB)
    assert len(post.send("emergo challenge alice bob", ALICE)) == 2
    # Error paths.
    assert "from 0 to 99, or off" in text(post.one(f"emergo seek bob {PW['bob']} lots", BOB))
    assert "from 0 to 999, or off" in text(post.one(f"emergo limit bob {PW['bob']} x", BOB))
    wrong = post.one("emergo reject bob not-his-1", BOB)
    assert str(wrong["Subject"]) == "Emergo error" and "not-his-1" not in text(wrong)


REPLY = (
    "emergo move {board} bob bob-pw1 e6\n"
    "\n"
    "Your move, alice.\n"
    "\n"
    "On Sat, 21 Nov 2026 at 10:00, pbmserv@localhost wrote:\n"
    "> Emergo Board {board}: alice (Ohs, 1600) against bob (Eks, 1600)\n"
    "> bob may answer with 'emergo move {board} bob PASSWORD accept'\n"
)


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger="pbm_emergo")
    caplog.set_level(logging.INFO)
    return caplog


def test_commands_in_the_body_of_a_reply(
    make_post: Callable[..., Post], logged: pytest.LogCaptureFixture
) -> None:
    post = make_post()
    board = challenge(post)
    play(post, board, ("alice", "e4"))
    mails = post.send(f"Re: Emergo Board {board} bob", BOB, body=REPLY.format(board=board))
    # Played, with the text as its comment: marked " **".
    assert subjects(mails) == [(ALICE, f"Emergo Board {board} alice **"),
                               (BOB, f"Emergo Board {board} alice **")]  # fmt: skip
    assert "bob played e6 (move 2)." in text(mails[0])
    assert "bob writes:\n  Your move, alice.\n" in text(mails[0])
    with post.sessions() as session:
        stored = session.scalars(
            select(InboundMessage.subject).order_by(InboundMessage.id.desc()).limit(1)
        ).one()
    assert stored == f"emergo move {board} bob ******** e6"
    # A failing body command: the error echoes the line masked.
    failed = post.one(f"Re: Emergo Board {board} alice", ALICE,
                      body=f"emergo move {board} alice alice-pw1 a1\n")  # fmt: skip
    assert str(failed["Subject"]) == f"Emergo Board {board} Error"
    assert f"emergo move {board} alice ******** a1" in text(failed)
    # Several command lines: run as `multiple`, one report.
    several = post.send(
        f"Re: Emergo Board {board} alice", ALICE,
        body=f"emergo move {board} alice alice-pw1 c5\nemergo seek alice alice-pw1\n-- \nA\n",
    )
    report = next(m for m in several if str(m["Subject"]).startswith("Emergo multiple"))
    assert str(report["Subject"]) == "Emergo multiple: 2 done, 0 failed"
    assert f"  > emergo move {board} alice ******** c5\n" in text(report)
    # No command in the body: the Subject's error, as before.
    chatter = post.one(f"Re: Emergo Board {board} bob", ALICE, body="Nice game!\n")
    assert text(chatter).startswith("There is no command 'emergo board'.")
    assert_nowhere(post, logged, "alice-pw1", "bob-pw1")
