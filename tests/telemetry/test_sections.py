"""A mail's sections of time: exclusive, closed however a block ends, and nothing outside
a tally."""

from __future__ import annotations

import pytest

from pbm_emergo.telemetry import sections
from pbm_emergo.telemetry.sections import tally, timed


class Clock:
    """A perf_counter that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(sections.time, "perf_counter", made)
    return made


def test_a_section_inside_another_pauses_it(clock: Clock) -> None:
    with tally() as counted:
        with timed("read"):
            clock.now += 0.002
            with timed("render"):
                clock.now += 0.005
            clock.now += 0.001
        with timed("write"):
            clock.now += 0.003
    assert counted.milliseconds() == {"read": 3.0, "render": 5.0, "write": 3.0}


def test_a_section_left_by_an_error_is_closed_and_counted(clock: Clock) -> None:
    with tally() as counted:
        with pytest.raises(ValueError), timed("rules"):
            clock.now += 0.004
            raise ValueError("refused")
        with timed("render"):
            clock.now += 0.001
    assert counted.milliseconds() == {"rules": 4.0, "render": 1.0}


def test_outside_a_tally_a_section_counts_nothing(clock: Clock) -> None:
    with timed("render"):
        clock.now += 1.0
    with tally() as counted:
        pass
    assert counted.milliseconds() == {}


def test_a_section_entered_in_one_tally_is_left_in_it(clock: Clock) -> None:
    # The tally a section entered is the one it leaves, even if another opened meanwhile.
    with tally() as outer:
        section = timed("read")
        with section:
            clock.now += 0.002
            with tally() as inner, timed("write"):
                clock.now += 0.001
    assert outer.milliseconds() == {"read": 3.0}
    assert inner.milliseconds() == {"write": 1.0}
