"""The account, social and notice replies in the reader's language: each template renders
its own sentences translated (German and Dutch here), command words and values as they are,
and English unchanged."""

from __future__ import annotations

import pytest

from pbm_emergo.app.timers import _out_of_time
from pbm_emergo.views.i18n import speaking
from pbm_emergo.views.templating import render, render_in
from tests.views.test_templates import SAMPLES

# A sentence of each template in German and in Dutch (with the samples' values).
TRANSLATED: dict[str, tuple[str, str]] = {
    "signup_code.txt.j2": (
        "Willkommen bei Emergo, alice: ein Schritt fehlt noch",
        "Welkom bij Emergo, alice: nog één stap, je adres bevestigen.",
    ),
    "confirmed.txt.j2": ("Brett-Mails gehen an die erste.", "Bordmails gaan naar het eerste."),
    "forgot.txt.j2": ("der Code gilt einmal.", "de code werkt één keer."),
    "reset.txt.j2": ("Das Passwort von alice wurde am", "Het wachtwoord van alice is op"),
    "changed.txt.j2": (
        "Die registrierten Adressen von alice sind jetzt:",
        "De geregistreerde adressen van alice zijn nu:",
    ),
    "addresses_changed.txt.j2": (
        "Brett-Mails gehen an die erste.",
        "Bordmails gaan naar het eerste.",
    ),
    "deleted.txt.j2": ("Das Konto alice ist geschlossen.", "Het account alice is opgeheven."),
    "signoff.txt.j2": ("Auf Wiedersehen, alice.", "Tot ziens, alice."),
    "vacation.txt.j2": ("Urlaub übrig für 2026: 20 Tage", "Vakantie over voor 2026: 20 dagen"),
    "subscriptions.txt.j2": (
        "Ein Abonnent bekommt jede Brett-Mail",
        "Een volger krijgt elke bordmail",
    ),
    "notify.txt.j2": ("bekommt die letzte Brett-Mail", "krijgt de laatste bordmail"),
    "notify_digest.txt.j2": (
        "alice bekommt einmal am Tag eine Zusammenfassung",
        "alice krijgt eens per dag een samenvatting",
    ),
    "digest.txt.j2": ("auf 1 Brett bist du am Zug", "1 bord wacht op je zet"),
    "chat.txt.j2": ("schreibt auf Emergo-Brett 101", "schrijft op Emergo-bord 101"),
    "message.txt.j2": (
        "schickt dir diese Nachricht über den Emergo-Server",
        "stuurt je dit bericht via de Emergo-server",
    ),
    "message_sent.txt.j2": ("Deine Nachricht ging an", "Je bericht ging naar"),
    "declined.txt.j2": (
        "hat die Partie auf Emergo-Brett 101",
        "heeft de partij op Emergo-bord 101",
    ),
    "notice/reminder.txt.j2": (
        "Zum Ziehen schicke den Betreff",
        "Om te zetten, mail het onderwerp",
    ),
    "notice/vacation_over.txt.j2": ("dein Urlaub endete am", "je vakantie is geëindigd op"),
    "notice/confirm_address.txt.j2": (
        "Jemand hat den Emergo-Server",
        "Iemand vroeg de Emergo-server",
    ),
    "notice/foreign_address.txt.j2": (
        "Ein Befehl für deinen Emergo-Benutzernamen",
        "Een commando voor je Emergo-gebruikersnaam",
    ),
    "notice/locked.txt.j2": (
        "Dein Emergo-Benutzername alice ist für Mail von",
        "Je Emergo-gebruikersnaam alice is geblokkeerd",
    ),
    "notice/lock_vacation.txt.j2": ("ein Tag Urlaub wurde für dich", "er is een dag vakantie"),
    "notice/own_code.txt.j2": ("Zum Abschluss schicke an", "Om af te ronden, mail"),
    "notice/reset_code.txt.j2": ("der Code gilt einmal.", "de code werkt één keer."),
    "notice/reply_cut.txt.j2": (
        "Diese Antwort wurde hier gekürzt",
        "Dit antwoord is hier afgebroken",
    ),
    "notice/reply_limit.txt.j2": (
        "Weitere Mails an dich werden zurückgehalten",
        "Verdere mails aan jou worden vastgehouden",
    ),
    "notice/under_attack.txt.j2": (
        "Jemand versucht, das Passwort",
        "Iemand probeert het wachtwoord",
    ),
    "notice/dead_letter.txt.j2": ("Betreff deiner Mail:", "Onderwerp van je mail:"),
    "notice/html_left_out.txt.j2": ("Die HTML-Fassung dieser Mail", "De HTML-versie van deze mail"),
    "notice/support_deleted.txt.j2": (
        "Der Betreiber des Servers hat dein Emergo-Konto",
        "De beheerder van de server heeft je Emergo-account",
    ),
    "notice/support_merged.txt.j2": ("Ab jetzt spielst du als", "Vanaf nu speel je als"),
    "notice/support_password.txt.j2": ("Dein neues Passwort ist:", "Je nieuwe wachtwoord is:"),
    "notice/support_unlocked.txt.j2": (
        "Die für alice gezählten falschen Passwörter",
        "De verkeerde wachtwoorden die voor alice",
    ),
}


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("name", sorted(TRANSLATED))
def test_the_template_is_written_in_german_and_dutch(name: str) -> None:
    german, dutch = TRANSLATED[name]
    context = SAMPLES[name]
    assert german in _flat(render_in("de", name, **context))
    assert dutch in _flat(render_in("nl", name, **context))
    english = render_in(None, name, **context)
    assert german not in _flat(english) and dutch not in _flat(english)


@pytest.mark.parametrize("name", sorted(TRANSLATED))
def test_command_lines_stay_english(name: str) -> None:
    """Every indented line that quotes a command is the same in every language."""
    context = SAMPLES[name]
    english = [line for line in render(name, **context).splitlines()
               if line.startswith(("  emergo ", "  change ", "  confirm ", "  reset ",
                                   "  vacation ", "  notify ", "  signup "))]  # fmt: skip
    for language in ("de", "nl", "fr"):
        with speaking(language):
            lines = render(name, **context).splitlines()
        assert all(line in lines for line in english), (language, english)


@pytest.mark.parametrize(
    ("count", "german", "french"),
    [
        ([101], "Du hast deine laufende Partie auf Brett 101 aufgegeben.",
         "Vous avez abandonné votre partie en cours 101."),
        ([101, 105], "Du hast deine laufenden Partien auf den Brettern 101, 105 aufgegeben.",
         "Vous avez abandonné vos parties en cours 101, 105."),
    ],
)  # fmt: skip
def test_plurals_follow_the_count(count: list[int], german: str, french: str) -> None:
    context = {**SAMPLES["signoff.txt.j2"], "resigned": count}
    assert german in _flat(render_in("de", "signoff.txt.j2", **context))
    assert french in _flat(render_in("fr", "signoff.txt.j2", **context))


def test_french_puts_a_no_break_space_before_a_colon() -> None:
    text = render_in(
        "fr", "notice/support_password.txt.j2", **SAMPLES["notice/support_password.txt.j2"]
    )
    assert "Votre nouveau mot de passe est\u00a0:" in text


@pytest.mark.parametrize(
    ("why", "offered_by", "german"),
    [
        (("idle", 28), None, "bob hat 28 Tage nicht gezogen und verliert die Partie auf Zeit."),
        (("total", 1), None, "bob hat die gesamte Bedenkzeit von 1 Tag verbraucht und"),
        (("bank", 0), "alice", "das Remisangebot von alice stand noch"),
    ],
)
def test_a_loss_on_time_is_told_in_the_readers_language(
    why: tuple[str, int], offered_by: str | None, german: str
) -> None:
    with speaking("de"):
        assert german in _out_of_time(why, "bob", offered_by)
    with speaking(None):
        assert _out_of_time(("idle", 28), "bob", None) == (
            "bob did not move for 28 days and loses the game on time."
        )
