"""A refused queue in the player's language: the rules engine's reason inside the queue's
sentence ("would not be legal: ...") said in German, cells and moves as written; English
unchanged."""

from __future__ import annotations

from tests.support.mailer import Mailer

from .support import ADDRESS, PASSWORD, play_all
from .test_queue_autoplay import queue


def test_a_conditional_queue_refused_in_german(game: Mailer) -> None:
    game.send(f"language bob {PASSWORD['bob']} de", sender=ADDRESS["bob"])
    play_all(game, ["h5", "d7"])
    [refused] = queue(game, "bob", "h5=e6")
    first = " ".join(refused.body.split("\n\n")[0].split())
    assert first.startswith(
        "Der Zug des Gegners h5 wäre nicht erlaubt: Feld h5 ist besetzt: Steine werden nur "
        "auf freie Felder eingesetzt."
    ), refused.body  # the rules engine's reason too
    assert "would not be legal" not in refused.body
    [answer] = queue(game, "bob", "d8=d8")
    assert answer.body.startswith("Deine Antwort d8 auf d8 wäre nicht erlaubt: "), answer.body
    [english] = queue(game, "alice", "d8=d8")
    assert english.body.startswith("It is your turn on board 101")
