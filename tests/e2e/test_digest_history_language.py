"""The digest's time left and the history's dates in the reader's language, by mail: a
German player's daily digest says the time left in German units, and her history lists
the dates as German writes them, while English stays as it was. Through the real
listener, workers and scheduler (on the test's clock), SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

from tests.e2e.test_digest import digests, left_text, next_six_pm
from tests.support.clock import Clock
from tests.support.post import ALICE, BOB, Post, challenge, text


def test_a_german_digest_and_history(make_post: Callable[..., Post], clock: Clock) -> None:
    post = make_post()
    post.one("language alice alice-pw1 de", ALICE)
    post.one("timezone alice alice-pw1 Europe/Amsterdam", ALICE)
    post.one("notify digest alice alice-pw1 18", ALICE)
    board = challenge(post)
    post.send(f"emergo move {board} alice alice-pw1 c7", ALICE)
    moved = clock.now
    post.send(f"emergo move {board} bob bob-pw1 h6", BOB)
    clock.now = next_six_pm(clock.now) + timedelta(minutes=1)
    post.wait_for_scheduler()
    [digest] = digests(post)
    left = timedelta(days=28) - (clock.now - moved)
    assert f"Verbleibende Zeit: {left_text(left, 'T', 'Std')}" in " ".join(
        digest.split()
    )

    other = challenge(post)
    post.send(f"emergo move {other} alice alice-pw1 c7", ALICE)
    post.send(f"emergo move {other} bob bob-pw1 h6", BOB)
    post.send(f"emergo resign {other} alice alice-pw1", ALICE)
    german = text(post.one("emergo history alice", ALICE))
    day = clock.now.strftime("%d.%m.%y")
    assert re.search(rf"^{re.escape(day)}\s+{other}\s+alice - bob$", german, re.M), german
    english = text(post.one("emergo history alice", BOB))
    assert re.search(rf"^{clock.now:%Y-%m-%d}\s+{other}\s+alice - bob$", english, re.M), english
