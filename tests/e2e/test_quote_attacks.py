"""Quoted text and mail that must not be answered, through the real listener (smtplib), the
real workers and a recording relay; SQLite and PostgreSQL.

- A command line planted in a mail the victim replies to (a chat) never runs from the
  victim's address, whatever mail program and language quoted it: the listener finds where
  the quote starts when it parses the mail, and only the lines above it are read.
- A quoted command mail (its Subject holds a password, its header block an address) never
  reaches the opponent, the outbox or the stored move comment.
- A mailing list's mail, a mail that looped through us, and an autoresponder's answer to our
  error reply are stored and never answered; a player who answers an error with a command,
  or replies to a board mail to move, is answered as always.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import select

from pbm_emergo.db.models import Board, InboundMessage, MoveRecord, OutboundText
from pbm_emergo.wire.marks import ERROR_ID_STRING
from tests.support.mail import SERVER_ADDRESS, command_mail, send, wait_for
from tests.support.post import ALICE, BOB, Post, challenge, subjects, text

MALLORY = "mallory@example.org"
PLANTED = "emergo challenge bob mallory"

# How each mail program quotes the chat it answers ({q}: a line of the quoted mail).
QUOTED_BY = {
    "outlook-de": (
        "Von: Alice <alice@example.org>\nGesendet: Donnerstag, 12. März 2026 10:00\n"
        "An: Bob <bob@example.org>\nBetreff: Emergo chat 101 alice\n\n{q}\n"
    ),
    "outlook-de-original": "-----Ursprüngliche Nachricht-----\nBetreff: chat\n\n{q}\n",
    "outlook-fr": (
        "De\u00a0: Alice <alice@example.org>\nEnvoyé\u00a0: jeudi 12 mars 2026 10:00\n"
        "À\u00a0: Bob <bob@example.org>\nObjet\u00a0: Emergo chat 101 alice\n\n{q}\n"
    ),
    "outlook-nl": (
        "Van: Alice <alice@example.org>\nVerzonden: donderdag 12 maart 2026 10:00\n"
        "Aan: Bob <bob@example.org>\nOnderwerp: Emergo chat 101 alice\n\n{q}\n"
    ),
    "outlook-es": (
        "De: Alice <alice@example.org>\nEnviado: jueves, 12 de marzo de 2026 10:00\n"
        "Para: Bob <bob@example.org>\nAsunto: Emergo chat 101 alice\n\n{q}\n"
    ),
    "outlook-it": (
        "Da: Alice <alice@example.org>\nInviato: giovedì 12 marzo 2026 10:00\n"
        "A: Bob <bob@example.org>\nOggetto: Emergo chat 101 alice\n\n{q}\n"
    ),
    "outlook-underscores": "________________________________\nFrom: Alice\n\n{q}\n",
    "gmail-de": "Am Do., 12. März 2026 um 10:00 Uhr schrieb Alice <alice@example.org>:\n\n{q}\n",
    "apple-fr": "Le 12 mars 2026 à 10:00, Alice <alice@example.org> a écrit :\n\n{q}\n",
    "apple-nl": "Op 12 mrt. 2026 om 10:00 schreef Alice <alice@example.org>:\n\n{q}\n",
    "apple-es": "El 12 mar 2026, a las 10:00, Alice <alice@example.org> escribió:\n\n{q}\n",
    "apple-it": (
        "Il giorno 12 mar 2026, alle ore 10:00 Alice <alice@example.org> ha scritto:\n\n{q}\n"
    ),
    "thunderbird-en": "On 12/03/2026 10:00, Alice wrote:\n> {q}\n",
}


def boards(post: Post) -> list[int]:
    with post.sessions() as session:
        return list(session.scalars(select(Board.number).order_by(Board.number)))


@pytest.mark.parametrize("client", QUOTED_BY)
def test_a_command_planted_in_a_chat_never_runs_from_the_victims_reply(
    make_post: Callable[..., Post], client: str
) -> None:
    """Alice chats a command line to Bob; Bob answers the chat, his mail program quoting it
    (without ">" marks, as Outlook does): the planted challenge does not start a board from
    Bob's address, and Mallory gets nothing."""
    post = make_post()
    post.signup("mallory", "mallory-pw1", MALLORY)
    board = challenge(post)
    chat = post.send(f"emergo chat {board} alice alice-pw1", ALICE, body=f"gg\n{PLANTED}\n")
    assert BOB in [to for to, _ in subjects(chat)]
    to_mallory = len(post.received_by(MALLORY))
    reply = "Danke!\n\n" + QUOTED_BY[client].format(q=PLANTED)
    mails = post.send(f"Re: Emergo chat {board} alice", BOB, body=reply)
    assert [to for to, _ in subjects(mails)] == [BOB]
    assert not str(mails[0]["Subject"]).startswith("New Emergo Board")
    assert boards(post) == [board]
    assert len(post.received_by(MALLORY)) == to_mallory


@pytest.mark.parametrize("client", ["outlook-de", "outlook-fr", "outlook-it", "apple-es"])
def test_a_quoted_command_mail_in_a_challenge_comment_reaches_nobody(
    make_post: Callable[..., Post], client: str
) -> None:
    """Alice challenges Bob and quotes her earlier move mail (its Subject holds her
    password): the password and the quoted header block reach neither Bob's mail nor the
    outbox."""
    post = make_post()
    quoted = QUOTED_BY[client].format(q="emergo move 101 alice alice-pw1 e4")
    mails = post.send("emergo challenge alice bob", ALICE, body="Revanche?\n\n" + quoted)
    to_bob = [m for m in mails if str(m["To"]) == BOB]
    assert to_bob and "Revanche?" in text(to_bob[0])
    with post.sessions() as session:
        stored = [bytes(raw) for raw in session.scalars(select(OutboundText.raw))]
    for raw in stored:
        assert b"alice-pw1" not in raw
        assert b"Gesendet" not in raw and "Envoyé".encode() not in raw


def test_a_quoted_address_never_reaches_the_stored_move_comment(
    make_post: Callable[..., Post],
) -> None:
    """A French Outlook quote below a move's comment: the move's comment (shown on the web
    page and by the API) is the sender's line only, without the quoted sender's address."""
    post = make_post()
    board = challenge(post)
    quoted = QUOTED_BY["outlook-fr"].replace("alice@example.org", "carol@example.org")
    mails = post.send(
        f"emergo move {board} alice alice-pw1 e4", ALICE,
        body="Bien joué.\n\n" + quoted.format(q="Emergo Board 101"),
    )
    assert all("carol@example.org" not in text(m) for m in mails)
    with post.sessions() as session:
        [move] = session.scalars(select(MoveRecord)).all()
    assert move.comment == "Bien joué."


def _ignored(post: Post, message_id: str) -> InboundMessage:
    """Wait until the mail ``message_id`` is stored and marked; return its row."""

    def row() -> InboundMessage | None:
        with post.sessions() as session:
            found = session.scalars(
                select(InboundMessage).where(InboundMessage.message_id == message_id)
            ).one_or_none()
            return found if found is not None and found.status in ("done", "ignored") else None

    found = wait_for(row)
    assert isinstance(found, InboundMessage)
    return found


def _send_raw(post: Post, subject: str, sender: str, body: str, **headers: str) -> str:
    post.count += 1
    message_id = f"<attack{post.count}@example.org>"
    msg = command_mail(
        subject, sender=sender, body=body, message_id=message_id,
        headers={name.replace("_", "-"): value for name, value in headers.items()},
    )
    send(post.server.config.smtp_port, msg)
    return message_id


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({"List_Id": "Players <players.lists.example.org>"}, "List-Id: mail from a mailing list"),
        ({"X_Loop": SERVER_ADDRESS}, "X-Loop names our address"),
    ],
)
def test_list_and_looped_mail_is_never_answered(
    make_post: Callable[..., Post], headers: dict[str, str], reason: str
) -> None:
    post = make_post()
    message_id = _send_raw(post, "emergo help", ALICE, "", **headers)
    row = _ignored(post, message_id)
    assert (row.status, row.not_answered) == ("ignored", reason)
    assert not [m for m in post.relay.handler.messages() if m["In-Reply-To"] == message_id]


def test_an_autoresponder_answering_our_error_gets_no_answer_a_player_does(
    make_post: Callable[..., Post],
) -> None:
    """A naive autoresponder answers our error mail (it ignores Auto-Submitted): by its
    Subject or by the error's Message-ID, it is stored and not answered, so no ping-pong.
    Alice answering the same error with the command retyped is answered, and Bob's reply to
    a board mail still moves."""
    post = make_post()
    board = challenge(post)
    error = post.one("emergo frobnicate", ALICE)
    assert str(error["Subject"]) == "Emergo error"
    error_id = str(error["Message-ID"])
    assert f".{ERROR_ID_STRING}@" in error_id
    for subject, extra in (
        ("Re: Emergo error", {}),
        ("Out of office", {"In_Reply_To": error_id, "References": error_id}),
    ):
        message_id = _send_raw(post, subject, ALICE, "I am away until Monday.\n", **extra)
        row = _ignored(post, message_id)
        assert row.status == "ignored"
        assert row.not_answered == "an answer to our error reply, with no command in it"
    retried = post.one("emergo show " + str(board), ALICE, headers={"In-Reply-To": error_id})
    assert str(retried["Subject"]).startswith(f"Emergo Board {board}")
    in_body = post.one("Re: Emergo error", ALICE, body=f"emergo show {board}\n")
    assert str(in_body["Subject"]).startswith(f"Emergo Board {board}")
    moved = post.send(f"Re: Emergo Board {board} alice", ALICE,
                      body=f"emergo move {board} alice alice-pw1 e4\n")
    assert moved and not any("Error" in str(m["Subject"]) for m in moved), subjects(moved)
