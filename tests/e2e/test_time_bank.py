"""By mail: clocks that fit a life. A capped time bank (``-timebank=72h -increment=24h``):
each move's thinking time is taken from it, each move adds the increment up to the cap, and
an empty bank loses on time, but only after a reminder reached the player. A weekend pause
(``-weekends``): Saturdays and Sundays in the player's time zone do not count. A player is
told when a vacation starts (the reply) and when it ran out (the scheduler's mail).

Through the real listener, workers and scheduler (on the test's clock), SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta

from sqlalchemy import select

from pbm_emergo.db.models import Board
from tests.support.clock import Clock
from tests.support.post import ALICE, BOB, Post, subjects, text
from tests.support.text import flat

PW = {"alice": "alice-pw1", "bob": "bob-pw1"}
ADDRESS = {"alice": ALICE, "bob": BOB}


def move(post: Post, board: int, userid: str, notation: str) -> list:  # type: ignore[type-arg]
    mails = post.send(f"emergo move {board} {userid} {PW[userid]} {notation}", ADDRESS[userid])
    assert mails and not any("rror" in str(m["Subject"]) for m in mails), subjects(mails)
    return mails


def nags(post: Post, address: str) -> list[str]:
    return [str(m["Subject"]) for m in post.received_by(address) if "Nag:" in str(m["Subject"])]


def test_a_time_bank_game_is_lost_only_once_the_bank_is_empty_and_a_reminder_came(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    mails = post.send("emergo challenge alice bob -timebank=72h -increment=24h", ALICE)
    assert subjects(mails) == [(ALICE, "New Emergo Board 101 alice"),
                               (BOB, "New Emergo Board 101 alice")]  # fmt: skip
    body = flat(text(mails[0]))
    assert "Time bank (72 hours each, 24 hours added a move): alice 3 d left in the time " \
        "bank; bob 3 d left in the time bank." in body  # fmt: skip
    # alice thinks two days: 72 - 48 + 24 hours left.
    clock.now += timedelta(days=2)
    mails = move(post, 101, "alice", "e4")
    assert "alice 2 d left in the time bank; bob 3 d left" in flat(text(mails[0]))
    # bob moves at once: his increment fills his bank no further than its cap.
    clock.now += timedelta(minutes=30)
    mails = move(post, 101, "bob", "e6")
    assert "alice 2 d left in the time bank; bob 3 d left" in flat(text(mails[0]))
    turn = clock.now
    assert f"lost on time from {turn + timedelta(days=2):%Y-%m-%d %H:%M} UTC" in flat(
        text(mails[0])
    )
    # (A scheduler run while alice thought her first move over may have reminded her of
    # that turn: only this turn's reminders count below.)
    post.wait_for_scheduler()
    before = len(nags(post, ALICE))
    # alice's two days run out before any reminder of this turn was sent: a reminder now,
    # and no loss on time until a day after it.
    clock.now = turn + timedelta(days=2, minutes=1)
    post.wait_for_scheduler()
    assert nags(post, ALICE)[before:] == ["Nag: Emergo Board 101 alice"]
    assert post.board(101).status == "active"
    clock.now += timedelta(hours=23)
    post.wait_for_scheduler()
    assert post.board(101).status == "active"
    clock.now += timedelta(hours=1, minutes=1)
    post.wait_for_scheduler()
    assert post.board(101).outcome_reason == "forfeit"
    over = [m for m in post.received_by(BOB) if "Game over" in str(m["Subject"])]
    assert "alice has used up their time bank and loses the game on time." in flat(text(over[0]))


def test_a_time_bank_reminds_a_day_before_it_runs_out(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    post.send("emergo challenge alice bob -timebank=3d", ALICE)
    # alice's bank of three days: a reminder a day before it is empty, lost when it is.
    clock.now += timedelta(days=1, hours=23)
    post.wait_for_scheduler()
    assert nags(post, ALICE) == []
    clock.now += timedelta(hours=1, minutes=1)
    post.wait_for_scheduler()
    assert nags(post, ALICE) == ["Nag: Emergo Board 101 alice"]
    clock.now += timedelta(days=1)
    post.wait_for_scheduler()
    assert post.board(101).outcome_reason == "forfeit"


def test_time_bank_options_that_do_not_hold_are_refused(make_post: Callable[..., Post]) -> None:
    post = make_post()
    for options, start in (
        ("-timebank=24h", "The time bank (-timebank=) holds from 72 hours"),
        ("-increment=36h", "The option -increment= adds time to a time bank"),
        ("-timebank=72h -increment=80h", "The increment (-increment=) is more than"),
        ("-timebank=lots", "The option -timebank=lots needs a time in hours"),
    ):
        [error] = post.send(f"emergo challenge alice bob {options}", ALICE)
        assert "rror" in str(error["Subject"]) and flat(text(error)).startswith(start), text(error)
    with post.sessions() as session:
        assert session.scalars(select(Board)).all() == []


def test_a_weekend_does_not_count(make_post: Callable[..., Post], clock: Clock) -> None:
    # The game starts on the next Saturday, 10:00 UTC (alice's time zone).
    today = clock.now.date()
    saturday = today + timedelta(days=(5 - today.weekday()) % 7 or 7)
    clock.now = datetime.combine(saturday, time(10), UTC)
    monday = datetime.combine(saturday + timedelta(days=2), time(), UTC)
    post = make_post()
    mails = post.send("emergo challenge alice bob --nagtime=1 --forfeittime=3 -weekends", ALICE)
    assert "the clocks stop at weekends" in flat(text(mails[0]))
    reminder, forfeit = monday + timedelta(days=1), monday + timedelta(days=3)
    assert (
        f"If alice does not move: a reminder at {reminder:%Y-%m-%d %H:%M} UTC, and the game is "
        f"lost on time from {forfeit:%Y-%m-%d %H:%M} UTC." in flat(text(mails[0]))
    )
    # A day and more of the calendar, but alice's clock ran only from Monday 0:00.
    clock.now = monday + timedelta(hours=23)
    post.wait_for_scheduler()
    assert nags(post, ALICE) == []
    clock.now = monday + timedelta(days=1, minutes=1)
    post.wait_for_scheduler()
    assert nags(post, ALICE) == ["Nag: Emergo Board 101 alice"]
    [nag] = [m for m in post.received_by(ALICE) if "Nag:" in str(m["Subject"])]
    assert "If you do not move within 2 more days (weekends do not count)" in flat(text(nag))
    clock.now = monday + timedelta(days=2, minutes=2)
    post.wait_for_scheduler()
    assert len(nags(post, ALICE)) == 2  # a day of her clock later
    clock.now = monday + timedelta(days=2, hours=23)
    post.wait_for_scheduler()
    assert post.board(101).status == "active" and len(nags(post, ALICE)) == 2
    clock.now = monday + timedelta(days=3, minutes=3)
    post.wait_for_scheduler()
    assert post.board(101).outcome_reason == "forfeit"


def test_a_player_is_told_when_a_vacation_starts_and_ends(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    [started] = post.send(f"vacation bob {PW['bob']} 2", BOB)
    until = clock.now + timedelta(days=2)
    assert str(started["Subject"]) == f"Emergo: bob on vacation until {until:%Y-%m-%d}"
    assert "bob is on vacation for 2 days" in flat(text(started))
    # While it lasts, nothing; once it ran out, the scheduler tells bob, once.
    clock.now = until - timedelta(minutes=1)
    post.wait_for_scheduler()
    assert [m for m in post.received_by(BOB) if "is over" in str(m["Subject"])] == []
    clock.now = until + timedelta(minutes=1)
    post.wait_for_scheduler()
    post.wait_for_scheduler()
    [over] = [m for m in post.received_by(BOB) if "is over" in str(m["Subject"])]
    assert str(over["Subject"]) == "Emergo: the vacation of bob is over"
    assert f"bob, your vacation ended at {until:%Y-%m-%d %H:%M} UTC." in flat(text(over))
    assert "Vacation left for" in text(over) and PW["bob"] not in text(over)
    # A vacation ended by its player is told by the reply, not by a second mail.
    post.send(f"vacation bob {PW['bob']} 3", BOB)
    [ended] = post.send(f"vacation bob {PW['bob']} off", BOB)
    assert str(ended["Subject"]) == "Emergo: vacation of bob ended"
    clock.now += timedelta(days=4)
    post.wait_for_scheduler()
    post.wait_for_scheduler()
    assert len([m for m in post.received_by(BOB) if "is over" in str(m["Subject"])]) == 1
