"""By mail: the clock in view. ``timezone USERID PASSWORD ZONE`` sets the time zone a player
reads times in; board mails and reminders say when the next reminder and the loss on time
come, in the time zone of the player to move. Through the real listener, workers and
scheduler (on the test's clock), SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from zoneinfo import ZoneInfo

from pbm_emergo.db.players import find_player
from pbm_emergo.game.clock import REMINDER_NOTICE
from tests.support.clock import Clock
from tests.support.post import ALICE, BOB, Post, challenge, text


def _at(moment: object, zone: str) -> str:
    local = moment.astimezone(ZoneInfo(zone))  # type: ignore[attr-defined]
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()}"


def test_board_mails_and_reminders_give_the_deadlines_in_the_players_time_zone(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    answer = post.one("timezone bob bob-pw1 europe/amsterdam", BOB)
    assert str(answer["Subject"]) == "Emergo: bob reads times in Europe/Amsterdam"
    assert "bob reads times in Europe/Amsterdam from now on" in text(answer)
    assert "bob-pw1" not in text(answer)
    board = challenge(post, "--nagtime=2 --forfeittime=5")
    moved = clock.now
    mails = post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    reminder, forfeit = moved + timedelta(days=2), moved + timedelta(days=5)
    expected = (
        f"If bob does not move: a reminder at {_at(reminder, 'Europe/Amsterdam')} "
        f"(Europe/Amsterdam), and the game is lost on time from "
        f"{_at(forfeit, 'Europe/Amsterdam')} (Europe/Amsterdam)."
    )
    for mail in mails:  # both players' board mails, in the zone of bob, who is to move
        assert expected in " ".join(text(mail).split()), text(mail)
        html = mail.get_body(("html",))
        assert html is not None and "emergo-deadlines" in html.get_content()
    # alice reads UTC: her turn's deadlines are in UTC.
    clock.now += timedelta(hours=1)
    mails = post.send(f"emergo move {board} bob bob-pw1 e6", BOB)
    later = clock.now + timedelta(days=2)
    assert f"If alice does not move: a reminder at {later:%Y-%m-%d %H:%M} UTC," in " ".join(
        text(mails[0]).split()
    )
    # The reminder says when the next one comes and when the game is lost.
    clock.now += timedelta(days=2, minutes=1)
    post.wait_for_scheduler()
    [nag] = [m for m in post.received_by(ALICE) if "Nag:" in str(m["Subject"])]
    body = " ".join(text(nag).split())
    assert "If alice does not move: a reminder at" in body
    lost_from = max(later + timedelta(days=3), clock.now + REMINDER_NOTICE)
    assert f"lost on time from {lost_from:%Y-%m-%d %H:%M} UTC." in body


def test_a_time_zone_that_does_not_exist_is_refused_and_changes_nothing(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    error = post.one("timezone bob bob-pw1 Mars/Olympus_Mons", BOB)
    assert "rror" in str(error["Subject"])
    assert text(error).startswith("The ZONE after the password is no time zone")
    assert "bob-pw1" not in text(error)
    wrong = post.one("timezone bob not-bobs Europe/Paris", BOB)
    assert text(wrong).startswith("Wrong password for bob.")
    with post.sessions() as session:
        player = find_player(session, "bob")
        assert player is not None and player.timezone == "UTC"
    back = post.one("timezone bob bob-pw1 UTC", BOB)
    assert "bob reads times in UTC from now on" in text(back)
