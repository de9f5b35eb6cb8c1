"""By mail: ``notify digest``. A player with a digest gets no board mail for their
opponents' moves; once a day, at the hour they chose in their time zone, one mail lists
every board waiting for them (picture, time left, a reply template), and a reply with
several move lines plays them all. Through the real listener, workers and scheduler (on
the test's clock), SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from tests.support.clock import Clock
from tests.support.post import ALICE, BOB, Post, challenge, subjects, text

AMSTERDAM = ZoneInfo("Europe/Amsterdam")


def next_six_pm(now: datetime) -> datetime:
    local = now.astimezone(AMSTERDAM)
    slot = local.replace(hour=18, minute=0, second=0, microsecond=0)
    if slot <= local:
        slot = (local + timedelta(days=1)).replace(hour=18, minute=0, second=0, microsecond=0)
    return slot.astimezone(now.tzinfo)


def left_text(left: timedelta, day: str = "d", hour: str = "h") -> str:
    """A time left of days and hours as the digest says it (no "0 h": on some runs the
    wait until the digest is whole hours)."""
    hours = left.seconds // 3600
    return f"{left.days} {day} {hours} {hour}" if hours else f"{left.days} {day}"


def digests(post: Post) -> list[str]:
    return [text(m) for m in post.received_by(ALICE) if "Emergo digest" in str(m["Subject"])]


def test_a_daily_digest_instead_of_a_mail_a_move_and_a_reply_that_plays_every_board(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    post.one("timezone alice alice-pw1 Europe/Amsterdam", ALICE)
    answer = post.one("notify digest alice alice-pw1 18", ALICE)
    assert str(answer["Subject"]) == "Emergo: digest of alice at 18:00"
    assert "alice gets a digest once a day at 18:00 (Europe/Amsterdam)" in text(answer)
    assert "alice-pw1" not in text(answer)
    # New boards still come at once, and so do the answers to alice's own moves.
    boards = [challenge(post), challenge(post)]
    for board in boards:
        mine = post.send(f"emergo move {board} alice alice-pw1 c7", ALICE)
        assert sorted(str(m["To"]) for m in mine) == [ALICE, BOB]
        # bob's move: his board mail only, none to alice.
        moved = clock.now
        theirs = post.send(f"emergo move {board} bob bob-pw1 h6", BOB)
        assert subjects(theirs) == [(BOB, f"Emergo Board {board} alice")]
    assert digests(post) == []
    # At 18:00 in Amsterdam: one digest with both boards.
    clock.now = next_six_pm(clock.now) + timedelta(minutes=1)
    post.wait_for_scheduler()
    [digest] = digests(post)
    flat = " ".join(digest.split())
    for board in boards:
        assert f"Board {board}: you play Ohs (o) against bob; move 3 is yours." in digest
        assert f"emergo move {board} alice PASSWORD MOVE" in digest
    # The time left: 28 days from bob's move, less the wait until the digest.
    left = timedelta(days=28) - (clock.now - moved)
    assert f"Time left: {left_text(left)} (a reminder at " in flat
    assert ", lost on time from " in flat and "(Europe/Amsterdam))." in flat
    # At most one a day.
    clock.now += timedelta(hours=3)
    post.wait_for_scheduler()
    assert len(digests(post)) == 1
    # The reply, several move lines filled in: every board is played.
    lines = "\n".join(f"emergo move {board} alice alice-pw1 c3" for board in boards)
    mails = post.send("Re: Emergo digest alice: 2 boards waiting", ALICE, body=lines)
    [report] = [m for m in mails if "multiple: 2 done, 0 failed" in str(m["Subject"])]
    assert str(report["To"]) == ALICE and "alice-pw1" not in text(report)
    for board in boards:
        assert post.board(board).ply == 3
        assert any(f"Emergo Board {board} bob" == str(m["Subject"]) for m in mails
                   if str(m["To"]) == BOB)  # fmt: skip
    # Off: bob's moves bring alice a board mail again.
    off = post.one("notify digest alice alice-pw1 off", ALICE)
    assert "alice gets a board mail for every move again" in text(off)
    again = post.send(f"emergo move {boards[0]} bob bob-pw1 e7", BOB)
    assert sorted(str(m["To"]) for m in again) == [ALICE, BOB]


def test_a_digest_hour_that_is_no_hour_is_refused_and_changes_nothing(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    for hour in ("24", "six", "-1"):
        error = post.one(f"notify digest alice alice-pw1 {hour}", ALICE)
        assert text(error).startswith("Write the hour of your digest (0 to 23"), text(error)
    wrong = post.one("notify digest alice not-alices 18", ALICE)
    assert text(wrong).startswith("Wrong password for alice.")
    board = challenge(post)
    post.send(f"emergo move {board} alice alice-pw1 c7", ALICE)
    theirs = post.send(f"emergo move {board} bob bob-pw1 h6", BOB)
    assert sorted(str(m["To"]) for m in theirs) == [ALICE, BOB]  # no digest: a mail a move
    clock.now += timedelta(days=1)
    post.wait_for_scheduler()
    assert digests(post) == []
