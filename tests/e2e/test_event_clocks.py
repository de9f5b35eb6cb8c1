"""By mail and on the web: an event's clock. ``pbm-emergo admin event create`` takes a
challenge's time bank and weekend pause (``--timebank``, ``--increment``, ``--weekends``);
its games are played on them, and its page and its mails (the join answer, the boards of a
round) state its clock and vacation policy. Through the real listener, workers and
scheduler, SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select
from starlette.testclient import TestClient

from pbm_emergo.cli import main
from pbm_emergo.config import Config
from pbm_emergo.db.models import Board
from pbm_emergo.web.app import create_app
from tests.support.post import ALICE, BOB, Post, text
from tests.support.text import flat

CLOCK = (
    "a reminder after 2 days without a move, the game lost after 28, or when the time bank "
    "runs out; a time bank of 72 hours each, 24 hours added a move (up to the bank's size); "
    "the clocks stop at weekends (Saturday and Sunday in each player's time zone); vacation "
    "days stop the clock ('vacation')."
)


def test_an_event_played_on_a_time_bank_and_weekends_says_so(
    make_post: Callable[..., Post], db_config: Config
) -> None:
    post = make_post()
    url = db_config.effective_database_url
    assert main(["admin", "event", "create", "bank", "--format", "knockout", "--max-players",
                 "2", "--nagtime", "2", "--timebank", "72h", "--increment", "1d", "--weekends",
                 "--database-url", url]) == 0  # fmt: skip
    joined = [
        post.send(f"emergo join bank {userid} {userid}-pw1", address)[0]
        for userid, address in (("alice", ALICE), ("bob", BOB))
    ]
    for answer in joined:
        assert f"The clock of its games: {CLOCK}" in flat(text(answer)), text(answer)
    post.wait_for_scheduler()
    with post.sessions() as session:
        terms = {(b.timebank_hours, b.increment_hours, b.weekends_off)
                 for b in session.scalars(select(Board))}  # fmt: skip
        assert terms == {(72, 24, True)}
    mails = [m for m in post.received_by(ALICE) if "New Emergo Board" in str(m["Subject"])]
    assert mails and f"The clock: {CLOCK}" in flat(text(mails[0]))
    assert "Time bank (72 hours each, 24 hours added a move)" in flat(text(mails[0]))
    with TestClient(create_app(post.sessions), raise_server_exceptions=False) as client:
        page = client.get("/events/bank")
    assert page.status_code == 200
    assert f"The clock: {CLOCK}".replace("'", "&#39;") in " ".join(page.text.split())


def test_an_event_time_bank_that_does_not_hold_is_refused(db_config: Config) -> None:
    url = db_config.effective_database_url
    assert main(["admin", "event", "create", "short", "--format", "knockout", "--timebank",
                 "24h", "--database-url", url]) != 0  # fmt: skip
    assert main(["admin", "event", "create", "short", "--format", "knockout", "--increment",
                 "1d", "--database-url", url]) != 0  # fmt: skip
