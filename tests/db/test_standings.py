"""The one standings rule (:mod:`pbm_emergo.db.reads.rating_table`): established players,
then provisional ones, then inactive ones, the highest rating first within each; and the
same table by mail (``emergo standings``), on the web page /standings and by ``pbm-emergo
admin standings``."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.cli import main
from pbm_emergo.config import Config
from pbm_emergo.db import reads
from pbm_emergo.db.models import RatingChange
from pbm_emergo.db.players import create_player
from pbm_emergo.db.types import utcnow
from pbm_emergo.web.app import create_app
from tests.support.mailer import Mailer

# userid -> (rating, rating deviation, rated games, days since the last rated game; None:
# never rated)
LADDER = {
    "est": (1650, 60.0, 25, 3),  # established, the lowest rating of the rated ones
    "prov": (1700, 180.0, 3, 3),  # provisional: a deviation above 110
    "old": (1800, 50.0, 30, 400),  # inactive: no rated game in the last 365 days
    "fresh": (1600, 350.0, 0, None),  # inactive: never rated
}
# By rating alone (the highest first), "old" would lead and "est" come third.
EXPECTED = ["est", "prov", "old", "fresh"]


@pytest.fixture
def ladder(quick_argon2: None, db_sessions: sessionmaker[Session]) -> None:
    now = utcnow()
    with db_sessions.begin() as session:
        for userid, (rating, deviation, rated_games, days) in LADDER.items():
            player = create_player(session, userid, "pw", [f"{userid}@example.org"], now)
            player.rating = rating
            player.deviation = deviation
            player.rated_games = rated_games
            player.won = rated_games
            if days is not None:
                session.add(
                    RatingChange(
                        player_id=player.id,
                        rating_before=1600,
                        rating_after=rating,
                        created_at=now - timedelta(days=days),
                    )
                )


def ours(userids: list[str]) -> list[str]:
    return [u for u in userids if u in LADDER]


def test_the_rule(ladder: None, db_sessions: sessionmaker[Session]) -> None:
    with db_sessions() as session:
        table = reads.standings(session, utcnow())
    rows = {row.userid: row for row in table}
    assert ours([row.userid for row in table]) == EXPECTED
    assert [rows[u].section for u in EXPECTED] == [
        reads.ESTABLISHED, reads.PROVISIONAL, reads.INACTIVE, reads.INACTIVE
    ]
    assert [row.rank for row in table] == list(range(1, len(table) + 1))
    titles = [title for title, _ in reads.by_section(table)]
    assert titles == [reads.SECTION_TITLES[s] for s in reads.SECTIONS]


def test_mail_web_and_admin_give_the_same_table(
    ladder: None,
    db_sessions: sessionmaker[Session],
    db_config: Config,
    database_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mailer = Mailer(db_sessions, db_config)
    mailer.now = utcnow()
    mail = mailer.one("emergo standings", sender="est@example.org").body
    by_mail = re.findall(r"^ +(\d+)  (\w+) ", mail, flags=re.MULTILINE)

    with TestClient(create_app(db_sessions)) as client:
        page = client.get("/standings").text
    by_web = re.findall(r'<td class="n">(\d+)</td><td><a href="/players/(\w+)">', page)

    assert main(["admin", "standings", "--json", "--database-url", database_url]) == 0
    by_admin = [(str(row["rank"]), row["userid"]) for row in json.loads(capsys.readouterr().out)]

    assert ours([userid for _, userid in by_mail]) == EXPECTED
    assert by_mail == by_web == by_admin
    for title in reads.SECTION_TITLES.values():
        assert title in mail and title in page


def test_a_newcomer_with_a_game_under_way_is_provisional_not_inactive(
    ladder: None, db_sessions: sessionmaker[Session], db_config: Config,
) -> None:
    mailer = Mailer(db_sessions, db_config)
    mailer.send("emergo challenge fresh est", sender="fresh@example.org")
    with db_sessions() as session:
        rows = {row.userid: row for row in reads.standings(session, utcnow())}
    assert rows["fresh"].active_boards == 1
    assert rows["fresh"].section == reads.PROVISIONAL
    assert rows["old"].section == reads.INACTIVE
