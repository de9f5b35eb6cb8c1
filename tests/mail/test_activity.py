"""The listeners go first: what a listener notes of its clients, and how long a worker or
the sender waits for them (pbm_emergo.mail.activity)."""

from __future__ import annotations

import multiprocessing
import smtplib
import threading
import time
from types import SimpleNamespace

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config, load_config
from pbm_emergo.mail.activity import Deference, ListenerActivity
from pbm_emergo.mail.inbound import InboxHandler, Listener
from tests.support.mail import SERVER_ADDRESS, command_mail


class Clock:
    """A clock that moves only when slept on; ``talking_until`` says until when the
    listeners keep hearing from clients (every moment up to then)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.talking_until = 0.0
        self.slept: list[float] = []
        self.shared = SimpleNamespace(value=0.0)

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.slept.append(seconds)
        self.now += seconds
        # While clients talk, the listeners hear them all the time.
        self.shared.value = min(self.now, self.talking_until) if self.talking_until else 0.0

    def talk(self, seconds: float) -> None:
        """Clients talk from now on for ``seconds``."""
        self.talking_until = self.now + seconds
        self.shared.value = self.now

    def work(self, seconds: float) -> None:
        """The process works (the clock goes on; clients may go on talking)."""
        self.sleep(seconds)


def deference(clock: Clock, **kwargs: float) -> Deference:
    return Deference(ListenerActivity(clock.shared), clock=clock, sleep=clock.sleep, **kwargs)


def test_no_wait_when_no_client_was_heard() -> None:
    clock = Clock()
    waits = deference(clock, quiet=0.005)
    assert waits.wait() == 0.0
    clock.shared.value = clock.now - 0.010  # the last client went 10 ms ago
    assert waits.wait() == 0.0
    assert clock.slept == []


def test_waits_until_the_listeners_were_quiet_for_a_moment() -> None:
    clock = Clock()
    waits = deference(clock, quiet=0.005)
    clock.talk(0.030)  # clients talk for 30 ms more
    waited = waits.wait()
    assert waited == pytest.approx(0.035)  # until 5 ms after they stopped
    assert clock.now - clock.shared.value == pytest.approx(0.005)


def test_a_wait_ends_when_its_budget_is_spent_and_the_budget_grows_back_with_work() -> None:
    clock = Clock()
    waits = deference(clock, quiet=0.005, burst=2.0, share=0.5)
    clock.talk(3600)  # a flood that does not stop
    assert waits.wait() == pytest.approx(2.0)  # the whole burst budget, then work
    assert waits.wait() == 0.0  # nothing left
    clock.work(0.4)
    assert waits.wait() == pytest.approx(0.2)  # half as long as it worked
    clock.work(10.0)
    assert waits.wait() == pytest.approx(2.0)  # never more than the burst


def test_under_a_flood_processing_goes_on_at_two_thirds_of_its_speed_or_more() -> None:
    clock = Clock()
    waits = deference(clock, quiet=0.005, burst=2.0, share=0.5)
    clock.talk(3600)
    start, worked, mails = clock.now, 0.0, 0
    while clock.now - start < 600:
        waits.wait()
        clock.work(0.01)  # one mail
        worked += 0.01
        mails += 1
    elapsed = clock.now - start
    # At most `burst` + share * worked spent waiting: the worker keeps at least 2/3 of
    # its speed (a mail each 10 ms would be 60,000 mails in 600 s).
    assert elapsed - worked <= 2.0 + 0.5 * worked + 1e-6
    assert mails >= 39_800


def test_a_stop_ends_the_wait() -> None:
    clock = Clock()
    waits = deference(clock, quiet=0.005)
    clock.talk(60)
    stop = threading.Event()
    stop.set()
    assert waits.wait(stop) == 0.0


def _hear(shared: object) -> None:
    ListenerActivity(shared).heard()


def test_a_process_sees_what_another_heard() -> None:
    context = multiprocessing.get_context("spawn")
    activity = ListenerActivity(context.RawValue("d", 0.0))
    before = time.monotonic()
    process = context.Process(target=_hear, args=(activity.shared,))
    process.start()
    process.join(60)
    assert process.exitcode == 0
    assert before < activity.last_heard() <= time.monotonic()


def test_the_listener_notes_when_it_hears_from_a_client(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    activity = ListenerActivity()
    listener = Listener(InboxHandler(session_factory, config), config, activity=activity)
    listener.start()
    try:
        # (aiosmtpd's controller connects once at its start, to see that it answers.)
        before = activity.last_heard()
        with smtplib.SMTP("127.0.0.1", config.smtp_port, timeout=30) as smtp:
            smtp.ehlo("client.example.org")
            after_ehlo = activity.last_heard()
            assert after_ehlo > before
            smtp.sendmail("alice@example.org", [SERVER_ADDRESS],
                          command_mail("emergo help").as_bytes())
            assert activity.last_heard() > after_ehlo
    finally:
        listener.stop()


def test_the_budget_is_a_setting_and_zero_means_never_wait() -> None:
    config = load_config(environ={"PBM_EMERGO_LISTENER_FIRST_SECONDS": "0.5"})
    assert config.listener_first_seconds == 0.5
    assert load_config(environ={}).listener_first_seconds == 2.0
    with pytest.raises(ValueError, match="listener_first_seconds must be 0 or more"):
        load_config(environ={"PBM_EMERGO_LISTENER_FIRST_SECONDS": "-1"})
    clock = Clock()
    waits = deference(clock, burst=0.0)
    clock.talk(60)
    assert waits.wait() == 0.0
    clock.work(30)
    assert waits.wait() == 0.0
    assert clock.slept == [30]
