"""Quoted text in other languages, and what of a comment reaches others: through the mail
worker's `answer` on a real database. A quoted or forwarded mail (found by the mail layer,
pbm_emergo.mail.quotes) ends a body's commands and a comment in the forms German, French,
Dutch and Spanish mail programs write; a command line copied into a comment (a challenge's,
a move's) is masked before the opponent or the web page sees it."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbm_emergo.app.secrets import PASSWORD_LINE_LEFT_OUT
from pbm_emergo.commands.text import CommandText, body_text_lines
from pbm_emergo.db.models import Board, MoveRecord
from pbm_emergo.mail.quotes import quote_start
from tests.support.mailer import Mailer

ALICE, BOB = "alice@example.org", "bob@example.org"
MALLORY = "mallory@example.org"

GERMAN_OUTLOOK = (
    "Von: Alice <alice@example.org>\n"
    "Gesendet: Montag, 23. November 2026 10:00\n"
    "An: pbmserv@localhost\n"
    "Betreff: {quoted}\n"
)
GERMAN_ORIGINAL = "-----Ursprüngliche Nachricht-----\nBetreff: {quoted}\n"
FRENCH_OUTLOOK = (
    "De : Alice <alice@example.org>\n"
    "Envoyé : lundi 23 novembre 2026 10:00\n"
    "À : pbmserv@localhost\n"
    "Objet : {quoted}\n"
)
# Outlook writes the French space before the colon as a no-break space.
FRENCH_NO_BREAK_SPACE = (
    "De\u00a0: Alice <alice@example.org>\nEnvoyé\u00a0: lundi 23 novembre 2026\n{quoted}\n"
)
DUTCH_OUTLOOK = (
    "Van: Alice <alice@example.org>\nVerzonden: maandag 23 november 2026 10:00\n"
    "Aan: pbmserv@localhost\nOnderwerp: {quoted}\n"
)
SPANISH_OUTLOOK = (
    "De: Alice <alice@example.org>\nEnviado el: lunes, 23 de noviembre de 2026 10:00\n"
    "Para: pbmserv@localhost\nAsunto: {quoted}\n"
)
GERMAN_GMAIL = (
    "Am Mo., 23. Nov. 2026 um 10:00 Uhr schrieb Alice <alice@example.org>:\n{quoted}\n"
)
FRENCH_GMAIL = "Le lun. 23 nov. 2026 à 10:00, Alice <alice@example.org> a écrit :\n{quoted}\n"
QUOTES = [
    GERMAN_OUTLOOK, GERMAN_ORIGINAL, FRENCH_OUTLOOK, FRENCH_NO_BREAK_SPACE, DUTCH_OUTLOOK,
    SPANISH_OUTLOOK, GERMAN_GMAIL, FRENCH_GMAIL,
]  # fmt: skip


@pytest.mark.parametrize("quote", QUOTES)
def test_a_localized_quote_header_starts_quoted_text(quote: str) -> None:
    body = "Thanks, see you.\n\n" + quote.format(quoted="emergo challenge bob mallory")
    lines, reason, ignored = body_text_lines(body, quote_start(body))
    assert (lines, reason) == (["Thanks, see you.", ""], "quoted text")
    assert ignored >= 2
    # A reply read for its commands runs none of the quoted mail's.
    read = CommandText.read("Re: Emergo chat 101 mallory", body, quote_at=quote_start(body))
    assert not read.from_body and "emergo challenge" not in " ".join(read.lines)


@pytest.mark.parametrize(
    "line",
    [
        "emergo move 101 alice alicepw e4",
        "De rien, bonne partie",
        "An easy one",
        "Von mir aus",
        "Objet trouvé",
    ],
)
def test_ordinary_lines_do_not_start_quoted_text(line: str) -> None:
    body = f"{line}\nemergo show 101\n"
    assert body_text_lines(body, quote_start(body)) == ([line, "emergo show 101"], None, 0)


def test_a_from_line_alone_is_not_quoted_text() -> None:
    body = "Von: mir\nemergo show 101\n"
    assert body_text_lines(body, quote_start(body)) == (["Von: mir", "emergo show 101"], None, 0)


def test_a_planted_command_in_a_quoted_chat_is_not_run(players: Mailer) -> None:
    """A stranger's chat carries a command line; the victim's reply quotes it in German
    Outlook's form, read for its commands: nothing of the quote runs."""
    players.send("emergo challenge alice bob", sender=ALICE)
    players.signup("mallory", "mallorypw", MALLORY)
    body = "Danke!\n\n" + GERMAN_OUTLOOK.format(quoted="Emergo chat 101 mallory") + (
        "\nemergo challenge bob mallory\n"
    )
    replies = players.send("Re: Emergo chat 101 mallory", body, sender=BOB)
    assert [r.to for r in replies] == [BOB]
    assert not replies[0].subject.startswith("New Emergo Board")
    with players.factory() as session:
        assert [b.number for b in session.scalars(select(Board))] == [101]


@pytest.mark.parametrize("quote", [GERMAN_OUTLOOK, FRENCH_OUTLOOK])
def test_a_quoted_command_mail_in_a_challenge_comment_reaches_nobody(
    players: Mailer, quote: str
) -> None:
    body = "Revanche?\n\n" + quote.format(quoted="emergo move 101 alice alicepw e4")
    replies = players.send("emergo challenge alice bob", body, sender=ALICE)
    to_bob = [r for r in replies if r.to == BOB]
    assert to_bob and "Revanche?" in to_bob[0].body
    for reply in replies:
        assert "alicepw" not in reply.body and "alicepw" not in (reply.html or "")
        assert "Gesendet" not in reply.body and "Envoyé" not in reply.body


@pytest.mark.parametrize(
    "copied",
    [
        # A second command written into the body, where it is only a comment.
        "emergo move 101 alice alicepw e4",
        # A Subject line of an earlier command mail with no header block around it.
        "Betreff: emergo move 101 alice alicepw e4",
        "Objet : emergo move 101 alice alicepw e4",
        "*Subject:* change password alice alicepw newpass99",
    ],
)
def test_a_command_line_with_the_password_in_a_challenge_comment_is_masked(
    players: Mailer, copied: str
) -> None:
    body = f"Good luck!\n{copied}\n"
    replies = players.send("emergo challenge alice bob", body, sender=ALICE)
    to_bob = [r for r in replies if r.to == BOB]
    assert to_bob and "Good luck!" in to_bob[0].body
    assert "********" in to_bob[0].body
    for reply in replies:
        assert "alicepw" not in reply.body and "alicepw" not in (reply.html or "")


def test_a_quoted_sender_address_never_reaches_the_move_comment(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    comment = "Bien joué.\n\n" + FRENCH_OUTLOOK.format(quoted="Emergo Board 101 alice")
    replies = players.move(101, "alice", "e4", comment.replace("alice@", "carol@"))
    assert all("carol@example.org" not in r.body for r in replies)
    with players.factory() as session:
        [move] = session.scalars(select(MoveRecord)).all()
    assert move.comment == "Bien joué."


def test_a_comment_line_holding_the_verified_password_is_left_out(players: Mailer) -> None:
    """A mask inside the line would show where the password stood, and so a password that
    is an ordinary word: "Have a ******** game!" for `nice`."""
    players.signup("carol", "nice", "carol@example.org")
    players.send("emergo challenge carol bob", sender="carol@example.org")
    comment = "Have a nice game!\nSee you."
    replies = players.send("emergo move 101 carol nice e4", comment, sender="carol@example.org")
    to_bob = [r for r in replies if r.to == BOB]
    assert to_bob and "See you." in to_bob[0].body
    assert PASSWORD_LINE_LEFT_OUT in to_bob[0].body
    for reply in replies:
        assert "nice" not in reply.body and "Have a" not in reply.body
    with players.factory() as session:
        [move] = session.scalars(select(MoveRecord)).all()
    assert move.comment == f"{PASSWORD_LINE_LEFT_OUT}\nSee you."
