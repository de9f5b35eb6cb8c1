"""Reminders after the nag time, forfeits after the forfeit time, paused by vacation."""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.timers import Scheduler, scheduled
from pbm_emergo.config import Config
from pbm_emergo.db.models import OutboundMessage, Player
from tests.support.mailer import Mailer

from .support import board, run_scheduler


def test_no_reminder_before_the_nag_time(game: Mailer) -> None:
    game.send("emergo move 101 alice alicepw e4")
    assert run_scheduler(game, timedelta(days=6, hours=23)) == []


def test_reminder_to_the_player_to_move_after_the_nag_time(game: Mailer) -> None:
    game.send("emergo move 101 alice alicepw e4")
    replies = run_scheduler(game, timedelta(days=7, minutes=1))
    assert [(r.to, r.subject) for r in replies] == [
        ("bob@example.org", "Nag: Emergo Board 101 bob")
    ]
    body = replies[0].body
    assert body.startswith("bob, it has been your turn on Emergo Board 101 for 7 days.")
    assert "within 21 more days, you lose the game on time" in body
    assert "emergo move 101 bob PASSWORD MOVE" in body
    assert " E - .   .   .   o   ." in body  # the board as it stands
    assert board(game.factory).last_reminder_at == game.now
    # Not again until another nag period has passed, then once more.
    assert run_scheduler(game, timedelta(days=1)) == []
    assert len(run_scheduler(game, timedelta(days=6))) == 1


def test_a_move_restarts_the_clock(game: Mailer) -> None:
    game.now += timedelta(days=6)
    game.send("emergo move 101 alice alicepw e4")
    assert run_scheduler(game, timedelta(days=6)) == []
    assert len(run_scheduler(game, timedelta(days=1, minutes=1))) == 1


def test_forfeit_after_the_forfeit_time(game: Mailer) -> None:
    game.send("emergo move 101 alice alicepw e4")
    assert len(run_scheduler(game, timedelta(days=7))) == 1  # the reminder
    replies = run_scheduler(game, timedelta(days=21))
    assert sorted(r.to for r in replies) == ["alice@example.org", "bob@example.org"]
    assert {r.subject for r in replies} == {"Emergo Board 101 Game over"}
    assert "bob did not move for 28 days and loses the game on time." in replies[0].body
    assert "alice (Ohs) wins: bob did not move in time." in replies[0].body
    finished = board(game.factory)
    assert (finished.status, finished.winner, finished.outcome_reason) == (
        "finished", "white", "forfeit"
    )
    assert run_scheduler(game, timedelta(days=30)) == []  # a finished board is left alone


def test_challenge_options_set_the_times(players: Mailer) -> None:
    players.send("emergo challenge alice bob --nagtime=2 --forfeittime=3")
    assert run_scheduler(players, timedelta(days=1)) == []
    assert [r.to for r in run_scheduler(players, timedelta(days=1))] == ["alice@example.org"]
    assert {r.subject for r in run_scheduler(players, timedelta(days=1))} == {
        "Emergo Board 101 Game over"
    }


def test_vacation_pauses_reminders_and_forfeits_and_stops_the_clock(game: Mailer) -> None:
    start = board(game.factory).created_at
    game.one("vacation alice alicepw 20")
    assert run_scheduler(game, timedelta(days=19)) == []
    assert board(game.factory).status == "active"
    # The vacation's 20 days do not count: alice's clock reaches 7 days 27 days after the
    # board was made, and 28 days 48 days after.
    game.now = start + timedelta(days=27, minutes=-1)
    # No reminder yet; the vacation's end is told.
    assert [r.subject for r in run_scheduler(game, timedelta())] == [
        "Emergo: the vacation of alice is over"
    ]
    assert [r.subject for r in run_scheduler(game, timedelta(minutes=2))] == [
        "Nag: Emergo Board 101 alice"
    ]
    game.now = start + timedelta(days=47, minutes=-1)
    assert {r.subject for r in run_scheduler(game, timedelta())} == {
        "Nag: Emergo Board 101 alice"
    }
    game.now = start + timedelta(days=48, minutes=-1)
    assert run_scheduler(game, timedelta()) == []
    assert board(game.factory).status == "active"
    replies = run_scheduler(game, timedelta(minutes=2))
    assert {r.subject for r in replies} == {"Emergo Board 101 Game over"}
    assert "alice did not move for 28 days and loses the game on time." in replies[0].body


def test_a_vacation_set_by_hand_pauses_while_it_lasts(game: Mailer) -> None:
    # An operator may set players.vacation_until directly: no reminder, no forfeit until
    # then (without a vacations row the clock ran meanwhile).
    with game.factory.begin() as session:
        session.execute(
            update(Player)
            .where(Player.userid_key == "alice")
            .values(vacation_until=game.now + timedelta(days=40))
        )
    assert run_scheduler(game, timedelta(days=30)) == []
    assert board(game.factory).status == "active"
    # Out of time, but no reminder reached alice in her turn: first one, then the loss.
    [nag] = run_scheduler(game, timedelta(days=11))
    assert nag.subject == "Nag: Emergo Board 101 alice"
    assert "If you do not move within 1 more day, you lose the game on time." in nag.body
    replies = run_scheduler(game, timedelta(days=1))
    assert {r.subject for r in replies} == {"Emergo Board 101 Game over"}


def test_admin_view_shows_the_forfeit(game: Mailer, db_config: Config) -> None:
    from pbm_emergo.cli import main

    run_scheduler(game, timedelta(days=7))
    run_scheduler(game, timedelta(days=22))
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["admin", "show", "101", "--json", "--database-url",
                     db_config.effective_database_url]) == 0
    shown = json.loads(out.getvalue())
    assert shown["outcome"] == {"winner": "bob", "reason": "forfeit"}
    assert shown["to_move"] is None


def test_two_schedulers_at_once_send_one_reminder(
    game: Mailer, db_sessions: sessionmaker[Session], db_config: Config
) -> None:
    # Every server and worker process runs the scheduler: two runs that read the board at
    # the same moment both decide to remind it, but the reminder re-checks the last
    # reminder it read, so only the first to store it sends it.
    later = game.now + timedelta(days=7, minutes=1)
    one, other = (Scheduler(db_sessions, db_config, clock=lambda: later) for _ in range(2))
    with one.reads() as session:
        first = scheduled(session, db_config, later)
    with other.reads() as session:
        second = scheduled(session, db_config, later)
    nags = [["Nag: Emergo Board 101 alice"]]
    assert [[r.subject for r in w.replies] for w in first if w.replies] == nags
    assert [[r.subject for r in w.replies] for w in second if w.replies] == nags
    assert [one.store(w, later).conflicted for w in first if w.replies] == [False]
    assert [other.store(w, later).conflicted for w in second if w.replies] == [True]
    with db_sessions() as session:
        sent = session.scalars(select(OutboundMessage.subject)).all()
    assert sent.count("Nag: Emergo Board 101 alice") == 1


def reminders_failed(game: Mailer) -> None:
    """The reminders queued so far could not be delivered (a permanent failure)."""
    with game.factory.begin() as session:
        session.execute(
            update(OutboundMessage)
            .where(OutboundMessage.subject.startswith("Nag:"))
            .values(status="failed")
        )


def test_no_loss_on_time_before_a_reminder_was_sent(game: Mailer) -> None:
    game.send("emergo move 101 alice alicepw e4")
    # The reminder is queued but not sent (held back by a reply limit, or being retried).
    [nag] = run_scheduler(game, timedelta(days=7), delivered=False)
    assert "within 21 more days" in nag.body
    assert run_scheduler(game, timedelta(days=21, minutes=1)) == []
    assert board(game.factory).status == "active"
    # It could not be delivered: another one, then once a day while none is delivered.
    reminders_failed(game)
    [again] = run_scheduler(game, timedelta(minutes=1), delivered=False)
    assert "If you do not move within 1 more day, you lose the game on time." in again.body
    reminders_failed(game)
    assert run_scheduler(game, timedelta(hours=23)) == []
    assert len(run_scheduler(game, timedelta(hours=1))) == 1  # sent this time
    # The loss comes a day after a reminder was sent.
    assert run_scheduler(game, timedelta(hours=23, minutes=59)) == []
    replies = run_scheduler(game, timedelta(minutes=1))
    assert {r.subject for r in replies} == {"Emergo Board 101 Game over"}


def test_out_of_time_without_a_reminder_gets_one_first(game: Mailer) -> None:
    """The scheduler did not run for weeks: the reminder comes first, the loss a day later."""
    game.send("emergo move 101 alice alicepw e4")
    [nag] = run_scheduler(game, timedelta(days=30))
    assert nag.subject == "Nag: Emergo Board 101 bob"
    assert board(game.factory).status == "active"
    assert run_scheduler(game, timedelta(hours=23)) == []
    replies = run_scheduler(game, timedelta(hours=1))
    assert {r.subject for r in replies} == {"Emergo Board 101 Game over"}


def test_a_reminder_sent_before_the_turn_began_does_not_count(game: Mailer) -> None:
    assert len(run_scheduler(game, timedelta(days=7))) == 1  # alice's, for her first move
    game.send("emergo move 101 alice alicepw e4")
    # bob's turn: alice's reminder is not his, nor one of an earlier turn of his.
    [nag] = run_scheduler(game, timedelta(days=28))
    assert nag.to == "bob@example.org"
    assert board(game.factory).status == "active"
