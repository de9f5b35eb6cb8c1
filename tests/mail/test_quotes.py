"""Quoted and forwarded text, found once when a mail is parsed: every common mail program's
quote header in English, German, French, Dutch, Spanish and Italian ends the sender's own
text; ordinary lines do not. And the mail that must not be answered: a mailing list's, one
that has looped through us, an autoresponder's answer to our error."""

from __future__ import annotations

import pytest

from pbm_emergo.commands.text import CommandText
from pbm_emergo.mail.parse import ParsedMail, parse_mail
from pbm_emergo.mail.quotes import quote_start
from pbm_emergo.wire.marks import ERROR_ID_STRING

OWN = "pbmserv@emergo.test"
PLANTED = "emergo challenge bob mallory"

# One line of intro, then the quoted mail (each client and locale as it writes it).
INTROS = {
    "gmail-en": "On Thu, Mar 12, 2026 at 10:00 AM Alice <a@x.org> wrote:",
    "apple-en": "On Mar 12, 2026, at 10:00, Alice <a@x.org> wrote:",
    "thunderbird-en": "On 12/03/2026 10:00, Alice wrote:",
    "gmail-de": "Am Do., 12. März 2026 um 10:00 Uhr schrieb Alice <a@x.org>:",
    "apple-de": "Am 12.03.2026 um 10:00 schrieb Alice <a@x.org>:",
    "thunderbird-de": "Am 12.03.26 um 10:00 schrieb Alice:",
    "gmail-fr": "Le jeu. 12 mars 2026 à 10:00, Alice <a@x.org> a écrit :",
    "apple-fr": "Le 12 mars 2026 à 10:00, Alice <a@x.org> a écrit :",
    "apple-fr-no-break-space": "Le 12 mars 2026 à 10:00, Alice <a@x.org> a écrit\u00a0:",
    "thunderbird-fr": "Le 12/03/2026 à 10:00, Alice a écrit :",
    "apple-nl": "Op 12 mrt. 2026 om 10:00 schreef Alice <a@x.org>:",
    "gmail-nl": "Op do 12 mrt 2026 om 10:00 schreef Alice <a@x.org>:",
    "thunderbird-nl": "Op 12-03-2026 om 10:00 schreef Alice:",
    "apple-es": "El 12 mar 2026, a las 10:00, Alice <a@x.org> escribió:",
    "gmail-es": "El jue, 12 mar 2026 a las 10:00, Alice (<a@x.org>) escribió:",
    "thunderbird-es": "El 12/3/26 a las 10:00, Alice escribió:",
    "apple-it": "Il giorno 12 mar 2026, alle ore 10:00 Alice <a@x.org> ha scritto:",
    "gmail-it": "Il giorno gio 12 mar 2026 alle ore 10:00 Alice <a@x.org> ha scritto:",
    "thunderbird-it": "Il 12/03/2026 10:00, Alice ha scritto:",
    "gmail-en-wrapped": (
        "On Thu, Mar 12, 2026 at 10:00 AM Alice Longname <alice.longname@example.org>\nwrote:"
    ),
    "gmail-de-wrapped": (
        "Am Do., 12. März 2026 um 10:00 Uhr schrieb Alice Longname <\n"
        "alice.longname@example.org>:"
    ),
    "apple-forward-en": "Begin forwarded message:\n\nFrom: Alice <a@x.org>",
    "apple-forward-it": "Inizio messaggio inoltrato:\n\nDa: Alice <a@x.org>",
}
# Header blocks (Outlook's, and the forward blocks of Gmail and Thunderbird): the quoted
# Subject holds the planted line.
BLOCKS = {
    "outlook-en-original": (
        "-----Original Message-----\nFrom: Alice <a@x.org>\n"
        "Sent: Thursday, March 12, 2026 10:00 AM\nTo: pbmserv@localhost\nSubject: {q}"
    ),
    "outlook-de-original": (
        "-----Ursprüngliche Nachricht-----\nVon: Alice <a@x.org>\n"
        "Gesendet: Donnerstag, 12. März 2026 10:00\nAn: pbmserv@localhost\nBetreff: {q}"
    ),
    "outlook-de-original-subject-only": "-----Ursprüngliche Nachricht-----\nBetreff: {q}",
    "outlook-it-original": "-----Messaggio originale-----\nDa: Alice <a@x.org>\nOggetto: {q}",
    "outlook-en": (
        "From: Alice <a@x.org>\nSent: Thursday, March 12, 2026 10:00 AM\n"
        "To: pbmserv@localhost\nSubject: {q}"
    ),
    "outlook-en-bold": (
        "*From:* Alice <a@x.org>\n*Sent:* Thursday, March 12, 2026 10:00 AM\n"
        "*To:* pbmserv@localhost\n*Subject:* {q}"
    ),
    "outlook-de": (
        "Von: Alice <a@x.org>\nGesendet: Donnerstag, 12. März 2026 10:00\n"
        "An: pbmserv@localhost\nBetreff: {q}"
    ),
    "outlook-fr": (
        "De : Alice <a@x.org>\nEnvoyé : jeudi 12 mars 2026 10:00\n"
        "À : pbmserv@localhost\nObjet : {q}"
    ),
    "outlook-fr-no-break-space": (
        "De\u00a0: Alice <a@x.org>\nEnvoyé\u00a0: jeudi 12 mars 2026 10:00\n"
        "À\u00a0: pbmserv@localhost\nObjet\u00a0: {q}"
    ),
    "outlook-nl": (
        "Van: Alice <a@x.org>\nVerzonden: donderdag 12 maart 2026 10:00\n"
        "Aan: pbmserv@localhost\nOnderwerp: {q}"
    ),
    "outlook-es": (
        "De: Alice <a@x.org>\nEnviado: jueves, 12 de marzo de 2026 10:00\n"
        "Para: pbmserv@localhost\nAsunto: {q}"
    ),
    "outlook-es-enviado-el": (
        "De: Alice <a@x.org>\nEnviado el: jueves, 12 de marzo de 2026 10:00\n"
        "Para: pbmserv@localhost\nAsunto: {q}"
    ),
    "outlook-it": (
        "Da: Alice <a@x.org>\nInviato: giovedì 12 marzo 2026 10:00\n"
        "A: pbmserv@localhost\nOggetto: {q}"
    ),
    "outlook-underscores-en": (
        "________________________________\nFrom: Alice <a@x.org>\n"
        "Sent: Thursday, March 12, 2026 10:00 AM\nSubject: {q}"
    ),
    "outlook-underscores-de": (
        "________________________________\nVon: Alice <a@x.org>\n"
        "Gesendet: Donnerstag, 12. März 2026 10:00\nBetreff: {q}"
    ),
    "gmail-forward-en": (
        "---------- Forwarded message ---------\nFrom: Alice <a@x.org>\n"
        "Date: Thu, Mar 12, 2026 at 10:00 AM\nSubject: {q}"
    ),
    "gmail-forward-de": (
        "---------- Weitergeleitete Nachricht ---------\nVon: Alice <a@x.org>\n"
        "Date: Do., 12. März 2026 um 10:00 Uhr\nSubject: {q}"
    ),
    "gmail-forward-it": (
        "---------- Messaggio inoltrato ---------\nDa: Alice <a@x.org>\n"
        "Date: gio 12 mar 2026 alle ore 10:00\nSubject: {q}"
    ),
    "gmail-forward-nl": (
        "---------- Doorgestuurd bericht ---------\nVan: Alice <a@x.org>\nSubject: {q}"
    ),
    "thunderbird-forward-fr": (
        "-------- Message transféré --------\nSujet : {q}\nDate : Thu, 12 Mar 2026\n"
        "De : Alice <a@x.org>"
    ),
    "angle-brackets": "> {q}",
}

OWN_TEXT = "Thanks, see you.\n\n"


def _intro_body(intro: str) -> str:
    return f"{OWN_TEXT}{intro}\n> {PLANTED}\n"


@pytest.mark.parametrize("name", INTROS)
def test_an_intro_line_starts_the_quote(name: str) -> None:
    body = _intro_body(INTROS[name])
    assert quote_start(body) == 2


@pytest.mark.parametrize("name", BLOCKS)
def test_a_header_block_starts_the_quote(name: str) -> None:
    body = OWN_TEXT + BLOCKS[name].format(q=PLANTED) + "\n"
    assert quote_start(body) == 2


@pytest.mark.parametrize("name", [*INTROS, *BLOCKS])
def test_the_commands_and_the_comment_are_the_senders_lines_only(name: str) -> None:
    """Read as the listener reads it: a reply to a chat runs none of the quoted mail's
    commands, and its comment holds no line (no address) of the quote."""
    quoted = INTROS.get(name) or BLOCKS[name].format(q=PLANTED)
    body = _intro_body(quoted) if name in INTROS else OWN_TEXT + quoted + "\n"
    read = CommandText.read("Re: hello", body, quote_at=quote_start(body))
    assert not read.from_body and not read.multiple and PLANTED not in " ".join(read.lines)
    several = CommandText.read("multiple", body, quote_at=quote_start(body))
    assert several.lines == ("Thanks, see you.",)
    assert several.stopped_at == "quoted text" and several.ignored >= 1
    moved = CommandText.read("emergo move 101 alice pw e4", body, quote_at=quote_start(body))
    assert moved.comment == "Thanks, see you."


@pytest.mark.parametrize(
    "line",
    [
        "emergo move 101 alice alicepw e4",
        "De rien, bonne partie",
        "An easy one",
        "Von mir aus",
        "Objet trouvé",
        "Von: mir",
        "Da: me",
        "Thanks,",
        "Best regards",
        "- bob",
        "--nagtime=3",
        "-----",
        "On my way, see below",
        "Il giorno dopo",
        "Date: tomorrow",
    ],
)
def test_ordinary_lines_start_no_quote(line: str) -> None:
    assert quote_start(f"{line}\nemergo show 101\n") is None


def test_a_quote_after_the_senders_lines_is_found_where_it_starts() -> None:
    body = "emergo show 101\nemergo show 102\n\nVon: Alice\nGesendet: heute\n> emergo x\n"
    assert quote_start(body) == 3
    assert quote_start("no quote at all") is None
    assert quote_start("") is None


def test_the_parse_stores_where_the_quote_starts_and_reads_old_rows() -> None:
    body = OWN_TEXT + BLOCKS["outlook-de"].format(q=PLANTED) + "\n"
    raw = _raw("From: alice@example.org\nSubject: Re: Emergo chat 101 mallory", body)
    parsed = parse_mail(raw, "alice@example.org", own_address=OWN)
    assert parsed.quote_at == 2
    stored = parsed.to_stored()
    assert stored["quote_at"] == 2
    assert ParsedMail.from_stored(stored, sender="alice@example.org", not_answered=None) == parsed
    # A row stored before the parse kept quote_at: its quoted text is found when read.
    del stored["quote_at"]
    again = ParsedMail.from_stored(stored, sender="alice@example.org", not_answered=None)
    assert again.quote_at == 2


def test_an_html_only_mails_quote_is_found() -> None:
    html = (
        "<html><body><div>Merci!</div><div class='gmail_quote'>"
        f"<div>Le jeu. 12 mars 2026, Alice a écrit :</div><blockquote>{PLANTED}"
        "</blockquote></div></body></html>"
    )
    raw = (
        "From: alice@example.org\nSubject: hi\nContent-Type: text/html; charset=utf-8\n\n"
        + html
    ).replace("\n", "\r\n").encode("utf-8")
    parsed = parse_mail(raw, "alice@example.org", own_address=OWN)
    assert parsed.quote_at is not None
    assert [x for x in parsed.body.splitlines()[: parsed.quote_at] if x] == ["Merci!"]


def _raw(headers: str, body: str = "hello\n") -> bytes:
    return (headers.strip("\n") + "\n\n" + body).replace("\n", "\r\n").encode("utf-8")


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ("List-Id: Players <players.lists.example.org>", "List-Id: mail from a mailing list"),
        (f"X-Loop: {OWN}", "X-Loop names our address"),
        (f"X-Loop: {OWN.upper()} (vacation)", "X-Loop names our address"),
    ],
)
def test_list_and_loop_mail_is_not_answered(headers: str, reason: str) -> None:
    raw = _raw(f"From: a@example.org\nSubject: help\n{headers}")
    assert parse_mail(raw, "a@example.org", own_address=OWN).not_answered == reason


def test_an_x_loop_of_someone_else_is_answered() -> None:
    raw = _raw("From: a@example.org\nSubject: help\nX-Loop: other@example.org")
    assert parse_mail(raw, "a@example.org", own_address=OWN).not_answered is None


ANSWER_TO_ERROR = "an answer to our error reply, with no command in it"
ERROR_ID = f"<1.2.3.{ERROR_ID_STRING}@emergo.test>"


@pytest.mark.parametrize(
    ("headers", "body"),
    [
        ("Subject: Re: Emergo error", "I am away until Monday.\n"),
        ("Subject: AW: Emergo Board 101 Error", "Ich bin im Urlaub.\n"),
        ("Subject: Automatic reply: Emergo error", "Out of office.\n"),
        ("Subject: Re: RE: Emergo error", "Away.\n"),
        ("Subject: Emergo error", "Away.\n"),
        (f"Subject: Out of office\nIn-Reply-To: {ERROR_ID}", "Away.\n"),
        (f"Subject: Away\nReferences: <board-101.pbm-emergo@emergo.test> {ERROR_ID}", "Away.\n"),
        # The quoted error mail's lines are no command of the sender's.
        ("Subject: Re: Emergo error", "Away.\n\nOn Mon, pbmserv wrote:\n> emergo help\n"),
    ],
)
def test_an_autoresponders_answer_to_our_error_is_not_answered(headers: str, body: str) -> None:
    raw = _raw(f"From: a@example.org\n{headers}", body)
    assert parse_mail(raw, "a@example.org", own_address=OWN).not_answered == ANSWER_TO_ERROR


@pytest.mark.parametrize(
    ("headers", "body"),
    [
        # pbmserv players answer an error with the command retyped in the Subject...
        (f"Subject: emergo move 101 alice pw e4\nIn-Reply-To: {ERROR_ID}", ""),
        # ... or in the body, above the quote.
        ("Subject: Re: Emergo error", "emergo move 101 alice pw e4\n\n> There is no...\n"),
        # A reply to a board mail is a move, as always.
        ("Subject: Re: Emergo Board 101 alice\nIn-Reply-To: <9.pbm-emergo@emergo.test>",
         "emergo move 101 alice pw e4\n"),
        ("Subject: Re: Emergo Board 101 alice", "Nice move!\n"),
    ],
)
def test_a_players_answer_with_a_command_is_answered(headers: str, body: str) -> None:
    raw = _raw(f"From: a@example.org\n{headers}", body)
    assert parse_mail(raw, "a@example.org", own_address=OWN).not_answered is None
