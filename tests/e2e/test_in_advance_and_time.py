"""By mail: moves in advance (emergo queue, plain and conditional; emergo autoplay;
chains of queued and forced moves) and time (vacation, --totaltime, Nag: and New Subjects,
an open draw offer accepted at forfeit time).

Through the real listener (smtplib), the real workers, command layer and scheduler (on the
test's clock: days pass without sleeping), and a real aiosmtpd relay receiving every mail the
server sends (the Post fixture of the account security tests); SQLite and PostgreSQL.

The positions come from the rules engine: after h5 d7 d8 h6, Ohs (alice) has one legal move,
d8xd6, and after it Eks (bob) has one, h6xh4.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import select

from pbm_emergo.db.models import MoveRecord, QueuedMove
from pbm_emergo.rules import Game
from tests.support.clock import Clock
from tests.support.post import ALICE, BOB, Post, challenge, subjects, text
from tests.support.text import flat

CAROL = "carol@example.org"
PW = {"alice": "alice-pw1", "bob": "bob-pw1", "carol": "carol-pw1"}
ADDRESS = {"alice": ALICE, "bob": BOB, "carol": CAROL}


def move(post: Post, board: int, userid: str, notation: str) -> list:  # type: ignore[type-arg]
    return post.send(f"emergo move {board} {userid} {PW[userid]} {notation}", ADDRESS[userid])


def play(post: Post, board: int, *moves: str) -> None:
    """The moves in turn, alice first; every one must be played."""
    for i, notation in enumerate(moves):
        mails = move(post, board, "alice" if i % 2 == 0 else "bob", notation)
        assert mails and not any("Error" in str(m["Subject"]) for m in mails), subjects(mails)


def queue(post: Post, board: int, userid: str, items: str) -> list:  # type: ignore[type-arg]
    return post.send(f"emergo queue {board} {userid} {PW[userid]} {items}", ADDRESS[userid])


def moves_of(post: Post, board: int) -> list[tuple[str, str | None]]:
    with post.sessions() as session:
        return [
            (r.notation, r.autoplayed)
            for r in session.scalars(
                select(MoveRecord).where(MoveRecord.board_number == board)
                .order_by(MoveRecord.number)
            )
        ]


def queued(post: Post, board: int) -> list[tuple[str, str | None]]:
    with post.sessions() as session:
        rows = session.execute(
            select(QueuedMove.notation, QueuedMove.if_move)
            .where(QueuedMove.board_number == board).order_by(QueuedMove.id)
        ).all()
    assert post.board(board).queued == bool(rows)
    return [(r[0], r[1]) for r in rows]


def error_text(mails: list, to: str) -> str:  # type: ignore[type-arg]
    [mail] = mails
    assert str(mail["To"]) == to and "rror" in str(mail["Subject"]), subjects(mails)
    return text(mail)


# --- moves in advance ------------------------------------------------------------------------


def test_a_queued_move_by_mail_and_one_that_became_illegal(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = challenge(post)
    play(post, board, "h5", "d7")
    [answer] = queue(post, board, "bob", "h6")
    assert (str(answer["To"]), str(answer["Subject"])) == (BOB, f"Emergo Board {board} queue")
    assert "Your queued move (only you see this): h6 as move 4" in text(answer)
    assert PW["bob"] not in text(answer)
    mails = move(post, board, "alice", "d8")
    assert subjects(mails) == [(ALICE, f"Emergo Board {board} alice"),
                               (BOB, f"Emergo Board {board} alice")]  # fmt: skip
    body = text(mails[0])
    assert "alice played d8 (move 3).\nbob's queued move h6 was played (move 4, Auto).\n" in body
    assert " 4. h6 (Auto)" in body and "only you see" not in body
    assert moves_of(post, board)[-1] == ("h6", "queued")
    # Now alice must capture (d8xd6); a queued h6 for bob is not legal after it.
    queue(post, board, "bob", "h4")
    mails = move(post, board, "alice", "d8xd6")
    assert subjects(mails) == [(ALICE, f"Emergo Board {board} bob"),
                               (BOB, f"Emergo Board {board} Error"),
                               (BOB, f"Emergo Board {board} bob")]  # fmt: skip
    error = text(mails[1])
    assert error.startswith(f"bob, your queued move h4 on Emergo Board {board} could not be")
    assert "Why: Capture is compulsory" in error
    assert "It is your turn: mail the Subject" in error
    assert "It is bob's turn (Eks): move 6." in error  # the board, as it stands
    assert len(moves_of(post, board)) == 5 and queued(post, board) == []


def test_queue_error_paths_by_mail(make_post: Callable[..., Post]) -> None:
    post = make_post()
    post.signup("carol", PW["carol"], CAROL)
    board = challenge(post)
    play(post, board, "h5", "d7")
    assert error_text(queue(post, board, "alice", "e6"), ALICE).startswith(
        f"It is your turn on board {board}"
    )
    wrong = post.send(f"emergo queue {board} bob not-my-pw e6", BOB)
    assert error_text(wrong, BOB).startswith("Wrong password for bob.")
    assert "not-my-pw" not in text(wrong[0])
    assert error_text(queue(post, 999, "bob", "e6"), BOB).startswith("There is no board 999.")
    assert error_text(queue(post, board, "carol", "e6"), CAROL).startswith(
        f"carol does not play on board {board}"
    )
    usage = post.send(f"emergo queue {board} bob {PW['bob']}", BOB)
    assert error_text(usage, BOB).startswith("The command emergo queue needs these arguments")
    assert PW["bob"] not in text(usage[0])
    assert error_text(queue(post, board, "bob", "d8=h6 e6"), BOB).startswith(
        "A conditional queue has only items"
    )
    assert error_text(queue(post, board, "bob", "h5=e6"), BOB).startswith(
        "The opponent's move h5 would not be legal"
    )
    assert queued(post, board) == []
    [cleared] = queue(post, board, "bob", "clear")
    assert "you had nothing queued" in text(cleared)


def test_a_conditional_queue_fires_and_one_is_cleared(make_post: Callable[..., Post]) -> None:
    post = make_post()
    board = challenge(post)
    play(post, board, "h5", "d7")
    queue(post, board, "bob", "d8=h6 e4=e6")
    assert queued(post, board) == [("h6", "d8"), ("e6", "e4")]
    # The queue shows to its owner only.
    mine = text(post.one(f"emergo show {board}", BOB))
    assert "Your conditional queue (only you see this): if alice plays d8, h6; if alice " \
        "plays e4, e6." in " ".join(mine.split())
    assert "queue" not in text(post.one(f"emergo show {board}", ALICE))
    mails = move(post, board, "alice", "e4")
    assert "bob's queued move e6 was played (move 4, Auto)." in text(mails[0])
    assert all("only you see" not in text(m) for m in mails)
    assert moves_of(post, board)[2:] == [("e4", None), ("e6", "queued")]
    # A queue naming other moves than the one played is cleared; nothing is played.
    position = Game.from_moves(["h5", "d7", "e4", "e6"]).position
    legal = position.legal_moves()
    named, other = legal[0], legal[1]
    answer = position.play(named).legal_moves()[0]
    queue(post, board, "bob", f"{named}={answer}")
    mails = move(post, board, "alice", str(other))
    assert subjects(mails) == [(ALICE, f"Emergo Board {board} bob"),
                               (BOB, f"Emergo Board {board} bob")]  # fmt: skip
    assert len(moves_of(post, board)) == 5 and queued(post, board) == []


def test_autoplay_and_a_chain_of_queued_and_forced_moves(make_post: Callable[..., Post]) -> None:
    post = make_post()
    [on] = post.send(f"emergo autoplay bob {PW['bob']} on", BOB)
    assert str(on["Subject"]) == "Emergo autoplay on for bob"
    assert "Autoplay is on for bob" in text(on) and PW["bob"] not in text(on)
    board = challenge(post)
    play(post, board, "h5", "d7", "d8")
    queue(post, board, "alice", "d8xd6")
    mails = move(post, board, "bob", "h6")
    assert subjects(mails) == [(ALICE, f"Emergo Board {board} alice"),
                               (BOB, f"Emergo Board {board} alice")]  # fmt: skip
    assert (
        "bob played h6 (move 4).\n"
        "alice's queued move d8xd6 was played (move 5, Auto).\n"
        "bob's only legal move h6xh4 was played (move 6, Forced).\n"
    ) in text(mails[0])
    assert " 5. d8xd6 (Auto)" in text(mails[0]) and " 6. h6xh4 (Forced)" in text(mails[0])
    assert moves_of(post, board)[3:] == [
        ("h6", None), ("d8xd6", "queued"), ("h6xh4", "forced"),
    ]
    # Error paths; off.
    bad = post.send(f"emergo autoplay bob {PW['bob']} sometimes", BOB)
    assert error_text(bad, BOB).startswith("Write on or off after the password")
    wrong = post.send("emergo autoplay bob not-my-pw off", BOB)
    assert error_text(wrong, BOB).startswith("Wrong password for bob.")
    [off] = post.send(f"emergo autoplay bob {PW['bob']} off", BOB)
    assert "Autoplay is off for bob" in text(off)


# --- time ---------------------------------------------------------------------------------------


def test_a_vacation_stops_the_clock_and_its_allowance(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    board = challenge(post, "--nagtime=1 --forfeittime=3")
    play(post, board, "e4")
    start = clock.now
    [reply] = post.send(f"vacation bob {PW['bob']} 3", BOB)
    assert str(reply["Subject"]).startswith("Emergo: bob on vacation until ")
    assert "Vacation left for" in text(reply) and PW["bob"] not in text(reply)
    # Opponents' board mails say until when.
    mails = move(post, board, "alice", "propose")
    assert "bob is on vacation until" in text(mails[0])
    # During the vacation: no reminder, no loss on time.
    clock.now = start + timedelta(days=3, hours=-1)
    post.wait_for_scheduler()
    assert [m for m in post.received_by(BOB) if "Nag:" in str(m["Subject"])] == []
    assert post.board(board).status == "active"
    # Afterwards the clock runs again from where it stopped: a reminder after one more day.
    clock.now = start + timedelta(days=4, minutes=1)
    post.wait_for_scheduler()
    nags = [m for m in post.received_by(BOB) if "Nag:" in str(m["Subject"])]
    assert [str(m["Subject"]) for m in nags] == [f"Nag: Emergo Board {board} bob"]
    assert post.board(board).status == "active"
    # The allowance: 3 days taken, asking for more than the rest says what is left.
    too_much = post.send(f"vacation bob {PW['bob']} 30", BOB)
    assert "but bob has 27 days left for" in error_text(too_much, BOB)
    assert error_text(post.send(f"vacation bob {PW['bob']} off", BOB), BOB).startswith(
        "bob is not on vacation."
    )
    wrong = post.send("vacation bob not-my-pw 3", BOB)
    assert error_text(wrong, BOB).startswith("Wrong password for bob.")
    usage = post.send(f"vacation bob {PW['bob']} later", BOB)
    assert error_text(usage, BOB).startswith("Write a number of days or off")


def test_total_thinking_time_runs_out(make_post: Callable[..., Post], clock: Clock) -> None:
    post = make_post()
    mails = post.send("emergo challenge alice bob --totaltime=3", ALICE)
    assert subjects(mails) == [(ALICE, "New Emergo Board 101 alice"),
                               (BOB, "New Emergo Board 101 alice")]  # fmt: skip
    assert "Thinking time (3 days each): alice none used, 3 d left; bob none used, 3 d left." \
        in flat(text(mails[0]))
    clock.now += timedelta(days=2, hours=20)
    mails = move(post, 101, "alice", "e4")
    assert "alice 2 d 20 h used, 4 h left; bob none used, 3 d left." in flat(text(mails[0]))
    move(post, 101, "bob", "e6")
    # alice's turn begins with 4 hours left: a reminder at once, and no loss on time until
    # a day after it was sent.
    post.wait_for_scheduler()
    assert [str(m["Subject"]) for m in post.received_by(ALICE) if "Nag:" in str(m["Subject"])] \
        == ["Nag: Emergo Board 101 alice"]
    clock.now += timedelta(hours=4, minutes=1)
    post.wait_for_scheduler()
    assert post.board(101).status == "active"
    clock.now += timedelta(days=1)
    post.wait_for_scheduler()
    assert post.board(101).outcome_reason == "forfeit"
    over = [m for m in post.received_by(BOB) if "Game over" in str(m["Subject"])]
    assert "alice has used up the total thinking time of 3 days and loses the game on time." \
        in flat(text(over[0]))
    bad = post.send("emergo challenge alice bob --totaltime=999", ALICE)
    assert flat(error_text(bad, ALICE)).startswith(
        "The option --totaltime=999 needs a number of days from 3 to 365."
    )


def test_an_open_draw_offer_is_accepted_at_forfeit_time(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    board = challenge(post, "--nagtime=1 --forfeittime=3")
    play(post, board, "e4")
    move(post, board, "alice", "propose")
    clock.now += timedelta(days=1, minutes=1)
    # The reminder, sent (the outbox has recorded it, on the clock as it is now) before the
    # clock moves on: the game is lost on time only a day after the reminder was sent.
    post.wait_for_scheduler()
    nags = [str(m["Subject"]) for m in post.received_by(BOB) if "Nag:" in str(m["Subject"])]
    assert nags == [f"Nag: Emergo Board {board} bob"]
    clock.now += timedelta(days=2)
    post.wait_for_scheduler()
    assert (post.board(board).winner, post.board(board).outcome_reason) == (None, "draw agreed")
    over = [m for m in post.received_by(ALICE) if "Game over" in str(m["Subject"])]
    assert "alice's draw offer was still open, so it is accepted instead of a loss on time." \
        in " ".join(text(over[0]).split())
