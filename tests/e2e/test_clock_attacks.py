"""Nobody loses on time without having been told, replayed through the listener.

Each test mails the attack to the running server (real SMTP on 127.0.0.1, real workers,
scheduler and outbox sender, a recording relay, a clock the test moves) and shows that it
no longer works:

- a challenger can no longer set a one-day forfeit time, nor a reminder no earlier than the
  forfeit (the challenged player never told);
- a player whose reminder is held back by a flood of mail loses no game on time until a day
  after the reminder was actually sent;
- a losing player who locks their own address out every day is saved from a loss on time
  only out of their vacation allowance.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import pytest
from sqlalchemy import func, select

from pbm_emergo.db.models import Board, OutboundMessage
from tests.support.clock import Clock
from tests.support.mail import wait_for
from tests.support.post import ALICE, BOB, Post, challenge, text

AUTHSERV_ID = "mx.emergo.test"
# Our MTA's verdict on a mail from example.org, where alice and bob live: a registered
# address is locked out only by mail proven to come from it.
PROVEN = {
    "Authentication-Results": f"{AUTHSERV_ID}; spf=pass smtp.mailfrom=example.org; "
    "dmarc=pass header.from=example.org"
}


def boards(post: Post) -> int:
    with post.sessions() as session:
        return int(session.scalar(select(func.count()).select_from(Board)) or 0)


def mails_to(post: Post, address: str, subject_part: str) -> list[EmailMessage]:
    return [m for m in post.received_by(address) if subject_part in str(m["Subject"])]


def status(post: Post, board: int) -> tuple[str, str | None]:
    found = post.board(board)
    return found.status, found.outcome_reason


@pytest.mark.parametrize(
    ("options", "error"),
    [
        # The attack as reported: nag equal to forfeit, so no reminder, and one day.
        ("--nagtime=1 --forfeittime=1", "The option --forfeittime=1 is too short: the forfeit "
         "time of a game is at least 3 days"),
        ("--nagtime=1 --forfeittime=2", "The option --forfeittime=2 is too short"),
        ("--nagtime=3 --forfeittime=3", "The reminder time (--nagtime=3) must be shorter than "
         "the forfeit time (--forfeittime=3)"),
        ("--nagtime=30", "The reminder time (--nagtime=30) must be shorter than the forfeit "
         "time (--forfeittime=28)"),
        ("--totaltime=1", "The option --totaltime=1 is too short: the total thinking time of "
         "a game is at least 3 days"),
        ("--forfeittime=0", "The option --forfeittime=0 needs a number of days from 3 to 365."),
    ],
)
def test_a_challenge_cannot_set_a_clock_that_forfeits_before_a_reminder(
    make_post: Callable[..., Post], options: str, error: str
) -> None:
    post = make_post()
    [refused] = post.send(f"emergo challenge alice bob {options}", ALICE)
    assert (str(refused["To"]), str(refused["Subject"])) == (ALICE, "Emergo error")
    assert error in " ".join(text(refused).split())
    assert "no board was started" in text(refused) or "from 3 to 365" in error
    assert boards(post) == 0
    assert mails_to(post, BOB, "Emergo Board") == []


def test_a_flooded_player_loses_no_game_on_time_before_a_reminder_reaches_them(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    """The shortest clock a challenge may set, and bob's mail flooded just as his reminder
    is due: the reminder is held back by his reply limit, so the game waits for it."""
    post = make_post(reply_limit=2)
    # (An hour or more between the mails, each within the limit.)
    clock.now += timedelta(hours=2)
    board = challenge(post, "--nagtime=2 --forfeittime=3")
    clock.now += timedelta(hours=2)
    start = clock.now
    post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    # The flood: two more challenges' board mails use up bob's two mails of the hour.
    clock.now = start + timedelta(days=2, minutes=-5)
    post.send("multiple", ALICE, body="emergo challenge alice bob\nemergo challenge alice bob")
    clock.now = start + timedelta(days=2, minutes=1)
    post.wait_for_scheduler()
    with post.sessions() as session:
        [(reminder_status, note)] = session.execute(
            select(OutboundMessage.status, OutboundMessage.last_error).where(
                OutboundMessage.subject == f"Nag: Emergo Board {board} bob"
            )
        ).all()
    assert reminder_status == "pending" and (note or "").startswith("held:")
    assert mails_to(post, BOB, "Nag:") == []
    # bob's three days run out while his reminder is held: no loss on time. The reminder
    # goes out once the hour is over ...
    clock.now = start + timedelta(days=3, minutes=2)
    [nag] = post.delivered_to(BOB, "Nag:")
    assert "If you do not move within 1 more day, you lose the game on time." in text(nag)
    post.wait_for_scheduler()
    assert status(post, board) == ("active", None)
    # ... and the game is lost on time only a day after it was sent.
    clock.now = start + timedelta(days=4, minutes=1)
    post.wait_for_scheduler()
    assert status(post, board) == ("active", None)
    clock.now = start + timedelta(days=4, minutes=3)
    post.wait_for_scheduler()
    assert status(post, board) == ("finished", "forfeit")
    over = wait_for(lambda: mails_to(post, BOB, "Game over"))
    assert "bob did not move for 3 days and loses the game on time." in text(over[0])


def lock_out(post: Post, board: int) -> None:
    """bob types five wrong passwords from his own (proven) address: it is locked."""
    for n in range(5):
        post.send(f"emergo move {board} bob typo{n} e6", BOB, headers=PROVEN)
    locked = post.one(f"emergo move {board} bob bob-pw1 e6", BOB, headers=PROVEN)
    assert text(locked).startswith("The userid bob is locked")


def test_locking_oneself_out_every_day_saves_a_lost_game_only_out_of_the_vacation_allowance(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    """Before, a lock-out held every loss on time back while it lasted and for a day after:
    a losing player who locked themselves out once a day never lost on time."""
    if clock.now.month == 12 and clock.now.day > 20:
        # The allowance is per calendar year: keep the test's days in one.
        clock.now = datetime(clock.now.year + 1, 1, 2, 10, 0, tzinfo=UTC)
    post = make_post(authserv_id=AUTHSERV_ID, vacation_days=2)
    board = challenge(post, "--nagtime=2 --forfeittime=3")
    start = clock.now
    post.send(f"emergo move {board} alice alice-pw1 e4", ALICE, headers=PROVEN)
    clock.now = start + timedelta(days=2, minutes=1)
    post.delivered_to(BOB, "Nag:")
    # Just before his time runs out, bob locks himself out.
    clock.now = start + timedelta(days=3, minutes=-10)
    lock_out(post, board)
    saved = f"Emergo notice: board {board} not lost on time, bob on vacation"
    # His time runs out while he is locked out: a day of his vacation is taken instead.
    clock.now = start + timedelta(days=3, minutes=1)
    [first] = post.delivered_to(BOB, saved)
    assert status(post, board) == ("active", None)
    assert "Vacation left for" in text(first) and "1 day (of 2 a year)" in text(first)
    # The vacation ends within a day after the lock: another day is taken, the last one.
    clock.now = start + timedelta(days=4, minutes=2)
    wait_for(lambda: len(mails_to(post, BOB, saved)) == 2)
    post.wait_for_outbox()
    assert status(post, board) == ("active", None)
    assert "0 days (of 2 a year)" in text(mails_to(post, BOB, saved)[1])
    # bob locks himself out again; with no vacation left, the lock no longer saves him.
    clock.now = start + timedelta(days=5)
    lock_out(post, board)
    clock.now = start + timedelta(days=5, minutes=3)
    [over] = wait_for(lambda: mails_to(post, BOB, "Game over"))
    assert status(post, board) == ("finished", "forfeit")
    assert "bob did not move for 3 days and loses the game on time." in text(over)
    assert len(mails_to(post, BOB, saved)) == 2
