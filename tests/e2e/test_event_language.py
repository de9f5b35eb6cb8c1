"""Tournament mails in each player's language, through the real listener, workers and
scheduler, SQLite and PostgreSQL: a German player reads the events list, his entry, the
round's board mail headline, the event's table and the final table in German (its clock
sentence worded as the board mails word theirs), while an English player's mails stay as
they were; the web event page's clock sentence in Dutch for a Dutch browser."""

from __future__ import annotations

import re
from collections.abc import Callable

from starlette.testclient import TestClient

from pbm_emergo.config import Config
from pbm_emergo.web.app import create_app
from tests.e2e.test_events import admin, event_boards
from tests.support.post import ALICE, BOB, Post, text


def flat(mail: object) -> str:
    return " ".join(text(mail).split())  # type: ignore[arg-type]


def test_a_german_player_reads_his_event_in_german(
    make_post: Callable[..., Post], db_config: Config
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    admin(db_config, "event", "create", "duo", "--format", "round-robin", "--max-players", "2",
          "--nagtime", "3", "--forfeittime", "9", "--timebank", "240h", "--weekends")  # fmt: skip

    listing = text(post.one("emergo events", BOB))
    assert listing.startswith("Turniere, die offen sind oder laufen:\n")
    assert "Turnier" in listing and "offen" in listing and "0/2" in listing
    assert all(len(line) <= 72 for line in listing.splitlines())
    assert "Events open for entries or under way:" in text(post.one("emergo events", ALICE))

    entry = flat(post.one("emergo join duo bob bob-pw1", BOB))
    assert "bob spielt im Turnier duo (round-robin) mit, als Spieler 1." in entry
    assert "Es beginnt, sobald 2 Spieler dabei sind." in entry
    assert (
        "Die Uhr seiner Partien: eine Erinnerung nach 3 Tagen ohne Zug, die Partie verloren "
        "nach 9 oder wenn das Zeitkonto leer ist; ein Zeitkonto von 240 Stunden für jeden"
    ) in entry
    assert "; Urlaubstage halten die Uhr an ('vacation')." in entry
    assert "Es gibt kein Turnier namens nix; 'emergo events' listet sie auf." in flat(
        post.one("emergo event nix", BOB)
    )
    english = flat(post.one("emergo join duo alice alice-pw1", ALICE))
    assert "alice is in the event duo (round-robin), player 2. It starts when 2 players" in (
        english
    )
    assert "The clock of its games: a reminder after 3 days without a move, the game lost " in (
        english
    )

    # Full: the scheduler opens round 1; each reads the headline in their language.
    post.wait_for_scheduler()
    [(number, white, black)] = event_boards(post, "duo")
    [german] = post.delivered_to(BOB, f"Board {number}")
    [mine] = post.delivered_to(ALICE, f"Board {number}")
    assert f"Das Turnier duo, Runde 1: {white} spielt Ohs (o) und zieht zuerst" in flat(german)
    assert "Die Uhr: eine Erinnerung nach 3 Tagen ohne Zug" in flat(german)
    assert f"The event duo, round 1: {white} plays Ohs (o) and moves first" in flat(mine)

    table = text(post.one("emergo event duo", BOB))
    assert table.startswith("Das Turnier duo: round-robin, im Gange, Runde 1 von 1.\n")
    assert "Die Partien werden gewertet; die Uhr: eine Erinnerung" in " ".join(table.split())
    assert "Nächste Partien:" in table and f"Brett {number} gegen " in table
    assert all(len(line) <= 72 for line in table.splitlines())

    # bob resigns: the final table goes to each in their language, the Subject in English.
    post.send(f"emergo resign {number} bob bob-pw1", BOB)
    post.wait_for_scheduler()
    [final] = post.delivered_to(BOB, "Emergo event duo: alice wins")
    assert text(final).startswith("Das Turnier duo ist beendet: alice gewinnt.\n\n")
    assert "Der Sieger: alice." in text(final)
    assert "Zuerst die Punkte, dann die Feinwertung: Sonneborn-Berger (SB)" in flat(final)
    [theirs] = post.delivered_to(ALICE, "Emergo event duo: alice wins")
    assert text(theirs).startswith("The event duo has ended: alice wins.\n\n")
    assert "The event duo: round-robin, finished, round 1 of 1." in text(theirs)

    # The web page: the clock sentence in the browser's language.
    with TestClient(create_app(post.sessions), raise_server_exceptions=False) as client:
        page = client.get("/events/duo", headers={"Accept-Language": "nl"})
    assert page.status_code == 200
    assert "een herinnering na 3 dagen zonder zet, de partij verloren na 9" in page.text
    assert "vakantiedagen zetten de klok stil" in page.text


def test_a_german_players_private_event_says_its_start_in_german(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    created = flat(
        post.one("emergo event create friends bob bob-pw1 swiss fr1ends --starts=+2d", BOB)
    )
    assert "Das private Turnier friends (swiss) ist offen." in created
    assert re.search(
        r"Es beginnt am \d{1,2}\. \w+ \d{4} \d\d:\d\d UTC oder sobald 16 Spieler dabei sind\.",
        created,
    ), created
    refused = flat(post.one("emergo event create friends bob bob-pw1 swiss fr1ends", BOB))
    assert "Es gibt schon ein Turnier namens friends." in refused
    english = flat(post.one("emergo join friends alice alice-pw1", ALICE))
    assert re.search(r"The event friends is private: join it with its password", english), english
