"""By mail: a player's Message-ID (which names their host) reaches only their own answer.

Mail to others (the opponent's board mail, a subscriber's, a ``message``, a challenge's
first mail) refers only to ids the server made, such as the board's thread id. Through the
real listener and a recording relay; SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage

from tests.support.post import ALICE, BOB, Post

CAROL = "carol@example.org"
SECRET_ID = "<secret-id@alice-host.example>"
SECRET_REFERENCES = "<older-id@alice-host.example> <other@mail.alice-host.example>"


def headers_of(mail: EmailMessage) -> str:
    return "\n".join(f"{name}: {value}" for name, value in mail.items())


def assert_hidden(mails: list[EmailMessage], address: str) -> EmailMessage:
    """The one mail to ``address``, checked to name neither alice's id nor her host."""
    [mail] = [m for m in mails if str(m["To"]) == address]
    head = headers_of(mail)
    assert "secret-id" not in head and "alice-host" not in head, head
    return mail


def assert_answers_alice(mails: list[EmailMessage]) -> None:
    [own] = [m for m in mails if str(m["To"]) == ALICE]
    assert own["In-Reply-To"] == SECRET_ID
    assert SECRET_ID in str(own["References"])


def test_mail_to_others_names_no_id_of_the_sender(make_post: Callable[..., Post]) -> None:
    post = make_post()
    post.signup("carol", "carol-pw1", CAROL)
    refs = {"References": SECRET_REFERENCES}

    started = post.send("emergo challenge alice bob", ALICE, headers=refs, message_id=SECRET_ID)
    first = assert_hidden(started, BOB)
    board = int(str(first["Subject"]).split()[-2])
    assert f"<board-{board}." in str(first["References"])
    assert_answers_alice(started)

    watching = post.one(f"emergo subscribe {board} carol carol-pw1", CAROL)
    assert str(watching["Subject"]).startswith("Emergo")

    moved = post.send(
        f"emergo move {board} alice alice-pw1 e4", ALICE, headers=refs,
        message_id="<secret-id-2@alice-host.example>",
    )
    assert sorted(str(m["To"]) for m in moved) == [ALICE, BOB, CAROL]
    for address in (BOB, CAROL):
        mail = assert_hidden(moved, address)
        assert mail["In-Reply-To"] is None
        assert str(mail["References"]) == f"<board-{board}.pbm-emergo@emergo.test>"
    [own] = [m for m in moved if str(m["To"]) == ALICE]
    assert own["In-Reply-To"] == "<secret-id-2@alice-host.example>"

    chat = post.send(
        f"emergo chat {board} alice alice-pw1", ALICE, body="Good luck!", headers=refs,
        message_id="<secret-id-4@alice-host.example>",
    )
    assert sorted(str(m["To"]) for m in chat) == [ALICE, BOB, CAROL]
    for address in (BOB, CAROL):
        assert_hidden(chat, address)

    message = post.send(
        "message alice alice-pw1 bob", ALICE, body="Rematch?", headers=refs,
        message_id="<secret-id-3@alice-host.example>",
    )
    assert sorted(str(m["To"]) for m in message) == [ALICE, BOB]
    assert_hidden(message, BOB)
    [sent] = [m for m in message if str(m["To"]) == ALICE]
    assert sent["In-Reply-To"] == "<secret-id-3@alice-host.example>"
