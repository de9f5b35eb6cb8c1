"""Time: vacation and its allowance, --totaltime, the opponent's open draw offer
accepted at forfeit time, the Subjects of reminders and new boards; through `handle` and the
scheduler with a simulated clock."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from pbm_emergo.db.models import Board, Player, Vacation
from tests.support.mailer import Mailer
from tests.support.text import flat

from .support import board, move, run_scheduler


def vacation(m: Mailer, setting: str, userid: str = "alice") -> str:
    reply = m.one(f"vacation {userid} {userid}pw {setting}", sender=f"{userid}@example.org")
    return reply.body


def stored(m: Mailer, userid: str = "alice") -> tuple[datetime | None, list[int]]:
    with m.factory() as session:
        player = session.scalars(select(Player).where(Player.userid == userid)).one()
        days = list(
            session.scalars(
                select(Vacation.days).where(Vacation.player_id == player.id).order_by(Vacation.id)
            )
        )
        return player.vacation_until, days


def test_vacation_and_off(players: Mailer) -> None:
    reply = players.one("vacation alice alicepw 10")
    assert reply.subject == "Emergo: alice on vacation until 2026-12-01"
    assert flat(reply.body).startswith(
        "alice is on vacation for 10 days, until 2026-12-01 10:03 UTC. "
    )
    assert "Vacation left for 2026: 20 days (of 30 a year)." in flat(reply.body)
    assert stored(players) == (players.now + timedelta(days=10), [10])
    players.now += timedelta(days=1, hours=12)
    off = players.one("vacation alice alicepw off")
    assert off.subject == "Emergo: vacation of alice ended"
    # Two days began: they count, the other eight are given back.
    assert "Vacation left for 2026: 28 days (of 30 a year)." in flat(off.body)
    assert stored(players) == (None, [2])
    assert vacation(players, "off").startswith("alice is not on vacation.")


def test_the_yearly_allowance(players: Mailer) -> None:
    vacation(players, "25")
    players.now += timedelta(days=26)
    refused = vacation(players, "6")
    assert flat(refused).startswith(
        "You asked for 6 days of vacation, but alice has 5 days left for 2026 (of 30 a year); "
        "nothing was changed."
    )
    assert "Vacation left for 2026: 0 days" in vacation(players, "5")
    # A new vacation replaces the current one, which then counts the days it began.
    players.now += timedelta(hours=1)
    assert "instead of until" in flat(vacation(players, "1"))
    # A new calendar year, a new allowance.
    players.now = datetime(2027, 1, 2, 9, 0, tzinfo=UTC)
    assert "Vacation left for 2027: 0 days (of 30 a year)." in vacation(players, "30")


def test_the_allowance_is_configurable(players: Mailer) -> None:
    players.config = dataclasses.replace(players.config, vacation_days=3)
    assert flat(vacation(players, "4")).startswith(
        "You asked for 4 days of vacation, but alice has 3 days left for 2026 (of 3 a year)"
    )


def test_vacation_errors(players: Mailer) -> None:
    usage = players.one("vacation alice alicepw soon")
    assert flat(usage.body).startswith("Write a number of days or off after the password")
    assert players.one("vacation alice alicepw 0").body.startswith(
        "A vacation lasts at least 1 day."
    )
    wrong = players.one("vacation alice wrongpw 5")
    assert flat(wrong.body).startswith("Wrong password for alice.")
    assert players.one("vacation zed zedpw 5").body.startswith("There is no player 'zed'.")
    assert flat(players.one("vacation alice").body).startswith(
        "The command vacation needs these arguments: vacation userid password DAYS|off."
    )
    assert stored(players) == (None, [])


def test_the_opponents_board_mails_say_until_when(game: Mailer) -> None:
    move(game, "alice", "e4")
    vacation(game, "5", userid="bob")
    replies = move(game, "alice", "propose")
    assert (
        "bob is on vacation until 2026-11-26 10:05 UTC: no reminders and no loss on time "
        "until then; their clock stops." in flat(replies[0].body)
    )


def test_new_boards_and_reminders_say_so_in_the_subject(players: Mailer) -> None:
    replies = players.send("emergo challenge alice bob --nagtime=1")
    assert [r.subject for r in replies] == ["New Emergo Board 101 alice"] * 2
    move(players, "alice", "e4")
    [nag] = run_scheduler(players, timedelta(days=1))
    assert (nag.to, nag.subject) == ("bob@example.org", "Nag: Emergo Board 101 bob")


# --- total thinking time ---------------------------------------------------------------


def test_total_time_in_the_board_mail_and_a_loss_on_time(players: Mailer) -> None:
    replies = players.send("emergo challenge alice bob --totaltime=3")
    body = flat(replies[0].body)
    assert "; 3 days of thinking time each." in body
    assert "Thinking time (3 days each): alice none used, 3 d left; bob none used, 3 d left." in (
        body
    )
    assert board(players.factory).total_days == 3
    players.now += timedelta(hours=10)
    move(players, "alice", "e4")
    players.now += timedelta(days=2, hours=6)
    replies = move(players, "bob", "e6")
    assert "Thinking time (3 days each): alice 10 h 1 min used, 2 d 13 h left; bob 2 d 6 h " \
        "used, 17 h 59 min left." in " ".join(replies[0].body.split())
    move(players, "alice", "c4")
    # bob has less than a day left as his turn begins: a reminder at once (the scheduler
    # looks at such boards at once, not after a day), and the loss not before a day later.
    [nag] = run_scheduler(players, timedelta())
    assert nag.subject == "Nag: Emergo Board 101 bob"
    assert flat(nag.body).startswith(
        "bob, it is your turn on Emergo Board 101, and your thinking time is running out. "
        "If you do not move within 1 more day, you lose the game on time."
    )
    assert run_scheduler(players, timedelta(hours=23, minutes=59)) == []
    replies = run_scheduler(players, timedelta(minutes=1))
    assert {r.subject for r in replies} == {"Emergo Board 101 Game over"}
    assert "bob has used up the total thinking time of 3 days and loses the game on time." in (
        flat(replies[0].body)
    )
    finished = board(players.factory)
    assert (finished.winner, finished.outcome_reason) == ("white", "forfeit")


def test_a_vacation_stops_the_total_time(players: Mailer) -> None:
    players.send("emergo challenge alice bob --totaltime=3")
    move(players, "alice", "e4")
    vacation(players, "3", userid="bob")
    # No reminder and no loss while away; only the vacation's end is told.
    after = run_scheduler(players, timedelta(days=3))
    assert [r.subject for r in after] == ["Emergo: the vacation of bob is over"]
    assert board(players.factory).status == "active"
    # Two days of bob's clock after the vacation: one day left, the reminder; then the loss.
    [nag] = run_scheduler(players, timedelta(days=2))
    assert nag.subject == "Nag: Emergo Board 101 bob"
    replies = run_scheduler(players, timedelta(days=1))
    assert "bob has used up the total thinking time of 3 days" in flat(replies[0].body)


def test_total_time_errors(players: Mailer) -> None:
    bad = players.one("emergo challenge alice bob --totaltime=0")
    assert flat(bad.body).startswith(
        "The option --totaltime=0 needs a number of days from 3 to 365."
    )
    with players.factory() as session:
        assert session.scalars(select(Board)).first() is None


# --- a draw offer at forfeit time ----------------------------------------------------------


def test_an_open_draw_offer_is_accepted_instead_of_a_forfeit(game: Mailer) -> None:
    move(game, "alice", "e4")
    move(game, "alice", "propose")
    run_scheduler(game, timedelta(days=7))  # the reminder
    replies = run_scheduler(game, timedelta(days=21))
    assert {r.subject for r in replies} == {"Emergo Board 101 Game over"}
    assert (
        "bob did not move for 28 days; alice's draw offer was still open, so it is accepted "
        "instead of a loss on time." in " ".join(replies[0].body.split())
    )
    assert "The game is a draw: both players agreed." in flat(replies[0].body)
    finished = board(game.factory)
    assert (finished.winner, finished.outcome_reason) == (None, "draw agreed")


def test_the_own_draw_offer_of_the_player_out_of_time_does_not_save_them(game: Mailer) -> None:
    """Only the opponent, who would win on time, can give up that win by an offer; an offer
    of the player to move was never answered."""
    move(game, "alice", "e4")
    move(game, "bob", "propose")
    run_scheduler(game, timedelta(days=7))  # the reminder
    replies = run_scheduler(game, timedelta(days=21))
    assert {r.subject for r in replies} == {"Emergo Board 101 Game over"}
    assert "bob did not move for 28 days and loses the game on time." in " ".join(
        replies[0].body.split()
    )
    finished = board(game.factory)
    assert (finished.winner, finished.outcome_reason) == ("white", "forfeit")
