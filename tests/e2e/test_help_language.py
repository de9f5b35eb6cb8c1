"""``help COMMAND`` in the player's language by mail: after ``language USERID PASSWORD de``
the help of a command comes entirely in German (its description, its long help, the
closing line), the usage and the option names as written. Through the real listener,
SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

from pbm_emergo.commands.registry import by_name
from pbm_emergo.views.command_help import prose_runs
from tests.support.post import ALICE, BOB, Post, text
from tests.support.text import flat


def test_a_player_who_chose_german_gets_help_challenge_in_german(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    answer = post.one("help challenge", BOB)
    assert str(answer["Subject"]) == "Emergo help: emergo challenge"
    helped = text(answer)
    assert helped.startswith("emergo challenge u1 u2 [-unrated] [-blocked=draw]")
    said = flat(helped)
    assert "ein neues Brett eröffnen; u1 spielt Ohs und zieht zuerst, u2 spielt Eks" in said
    assert "Eröffnet ein neues Brett zwischen den Spielern u1 und u2; u1 spielt Ohs" in said
    assert "--nagtime=DAYS (eine Erinnerung nach so vielen Tagen ohne Zug, Standard 7" in said
    assert "Beide Spieler bekommen das Brett." in said
    assert "'help' listet alle Befehle auf; 'help emergo' schickt die Regeln von Emergo." in said
    # Nothing English is left of the help.
    challenge = by_name()["emergo challenge"]
    assert flat(challenge.description) not in said
    for run in prose_runs(challenge.details):
        assert flat(run.text) not in said
    for english in ("Options:", "Opens a new board", "Both players get the board", "'help' lists"):
        assert english not in said
    assert all(len(line) <= 72 for line in helped.splitlines())

    # alice chose nothing: the same help in English, as before.
    assert "Opens a new board between the players u1 and u2" in flat(
        text(post.one("help challenge", ALICE))
    )
