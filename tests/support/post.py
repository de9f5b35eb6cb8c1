"""The server seen from outside, as the end-to-end tests drive it: mail a command through
the real listener, wait until every mail it caused has reached the recording relay."""

from __future__ import annotations

import threading
from email.message import EmailMessage

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import outbox
from pbm_emergo.db.models import OUTBOUND_SENDING, Board, InboundMessage, OutboundMessage
from pbm_emergo.ops.server import MailServer
from tests.support.mail import Relay, command_mail, send, wait_for
from tests.support.moves import RATED_OPENING
from tests.support.signup import code_subject, confirmation_code

__all__ = ["RATED_OPENING"]

# The two players every Post starts with (see the make_post fixture, tests/support/fixtures.py).
ALICE, BOB = "alice@example.org", "bob@example.org"


_MAIL_AND_REPLIES = (
    select(InboundMessage.id, InboundMessage.status.label("inbound_status"),
           OutboundMessage.status, OutboundMessage.last_error)
    .outerjoin(OutboundMessage, OutboundMessage.inbound_id == InboundMessage.id)
    .where(InboundMessage.message_id == bindparam("message_id"))
)


def wait_for_replies(
    sessions: sessionmaker[Session], message_id: str, settled: tuple[str, ...] = ("sent",)
) -> int:
    """Wait until the mail ``message_id`` is done and each of its replies has a status in
    ``settled``; return how many replies it has."""

    def replies() -> int | None:
        # One plain query a look (a test looks every 50 ms): the mail's status
        # beside each of its replies' (none: one row of NULLs).
        with sessions.begin() as session:
            rows = session.execute(_MAIL_AND_REPLIES, {"message_id": message_id}).all()
        if len({row.id for row in rows}) > 1:
            raise AssertionError(f"more than one stored mail has the Message-ID {message_id}")
        if not rows or rows[0].inbound_status != "done":
            return None
        # A reply held back by a limit (due in a later hour) is settled for now.
        statuses = [
            "held" if (row.last_error or "").startswith("held:") else row.status
            for row in rows if row.status is not None
        ]
        if any(s not in settled for s in statuses):
            return None
        return len(statuses) + 1  # never 0, which wait_for would take for "not yet"

    return int(wait_for(replies)) - 1


def reply_ids(sessions: sessionmaker[Session], message_id: str) -> set[str]:
    """The Message-IDs of the mails the mail ``message_id`` caused (its outbox rows): only
    the answer to its sender refers to it in In-Reply-To, mail to others does not."""
    with sessions.begin() as session:
        return {
            str(mid)
            for mid in session.scalars(
                select(OutboundMessage.message_id)
                .join(InboundMessage, OutboundMessage.inbound_id == InboundMessage.id)
                .where(InboundMessage.message_id == message_id)
            )
        }


class Post:
    """The server seen from outside: mail a command, get the mails it caused."""

    def __init__(
        self, server: MailServer, relay: Relay, sessions: sessionmaker[Session]
    ) -> None:
        self.server = server
        self.relay = relay
        self.sessions = sessions
        self.count = 0
        self.runs = 0  # scheduler runs
        self.lock = threading.Lock()

    def send(
        self, subject: str, sender: str, body: str = "", headers: dict[str, str] | None = None,
        message_id: str | None = None,
    ) -> list[EmailMessage]:
        """Mail ``subject`` from ``sender`` (with ``message_id``, else one of the Post's own);
        wait until every mail it caused was relayed."""
        self.count += 1
        message_id = message_id or f"<sec{self.count}@example.org>"
        msg = command_mail(
            subject, sender=sender, body=body, message_id=message_id, headers=headers
        )
        send(self.server.config.smtp_port, msg)

        count = wait_for_replies(self.sessions, message_id, ("sent", "failed", "held"))
        ids = reply_ids(self.sessions, message_id)
        mails = self.relay.handler.with_message_ids(ids)
        assert len(mails) <= count
        return sorted(mails, key=lambda m: (str(m["To"]), str(m["Subject"])))

    def one(self, subject: str, sender: str, **kwargs: object) -> EmailMessage:
        mails = self.send(subject, sender, **kwargs)  # type: ignore[arg-type]
        assert len(mails) == 1, [(m["To"], m["Subject"]) for m in mails]
        return mails[0]

    def signup(self, userid: str, password: str, sender: str) -> EmailMessage:
        """``signup`` from ``sender``, then ``confirm`` with the code its answer carries
        (the address is not proven by our MTA): the welcome."""
        code_mail = self.one(f"signup {userid} {password}", sender)
        assert code_mail["Subject"] == code_subject(userid), text(code_mail)
        welcome = self.one(f"confirm {confirmation_code(text(code_mail))}", sender)
        assert welcome["Subject"] == f"Emergo: welcome {userid}", text(welcome)
        return welcome

    def received_by(self, address: str) -> list[EmailMessage]:
        """Every mail the relay got for ``address``."""
        return [
            msg
            for _, recipients, msg in list(self.relay.handler.received)
            if address in recipients
        ]

    def board(self, number: int) -> Board:
        with self.sessions() as session:
            return session.scalars(select(Board).where(Board.number == number)).one()

    def scheduler_ran(self) -> None:
        """A run of the scheduler stored what it did (``MailServer``'s ``on_scheduled``), so
        that a test can wait for runs whose reminders and board mails are in the outbox."""
        with self.lock:
            self.runs += 1

    def wait_for_scheduler(self, runs: int = 2) -> None:
        """Wait for ``runs`` scheduler runs to commit, then for the outbox to send what they
        queued. Of two runs the second began after this call, so it saw the clock as the
        test set it; and a mail counts as sent (``sent_at`` on the test's clock) before the
        test moves the clock again."""
        with self.lock:
            target = self.runs + runs
        wait_for(lambda: self.runs >= target)
        self.wait_for_outbox()

    def wait_for_outbox(self) -> None:
        """Wait until the outbox holds nothing due and nothing in hand: every mail queued so
        far was handed to the relay and recorded as sent (or failed, or held back by a limit
        until later on the test's clock)."""

        def settled() -> bool:
            with self.sessions() as session:
                sending = session.scalar(
                    select(OutboundMessage.id)
                    .where(OutboundMessage.status == OUTBOUND_SENDING).limit(1)
                )
                return sending is None and not outbox.outbound_due(session, self.server.clock())

        wait_for(settled)

    def delivered_to(self, address: str, subject_part: str) -> list[EmailMessage]:
        """The mails for ``address`` whose Subject contains ``subject_part``, once there is
        one and the outbox has recorded it as sent (the relay has a mail before the sender
        records it: a clock moved in between would date its ``sent_at`` later)."""

        def found() -> list[EmailMessage]:
            return [m for m in self.received_by(address) if subject_part in str(m["Subject"])]

        wait_for(found)
        self.wait_for_outbox()
        return found()

def text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",)) if msg.is_multipart() else msg
    assert part is not None
    content = part.get_content()
    assert isinstance(content, str)
    return content.replace("\r\n", "\n")


def subjects(mails: list[EmailMessage]) -> list[tuple[str, str]]:
    return [(str(m["To"]), str(m["Subject"])) for m in mails]


def challenge(post: Post, options: str = "") -> int:
    mails = post.send(f"emergo challenge alice bob {options}".strip(), ALICE)
    assert sorted(str(m["To"]) for m in mails) == [ALICE, BOB]
    return int(str(mails[0]["Subject"]).split()[-2])


def play_a_short_game(post: Post) -> list[EmailMessage]:
    """alice and bob sign up, alice challenges bob, each plays four moves (the fewest for a
    rated game) and bob resigns: the game-over mails, checked to be what a rated resignation
    sends."""
    for userid, address in (("alice", ALICE), ("bob", BOB)):
        post.signup(userid, f"{userid}-pw1", address)
    board = challenge(post)
    for ply, move in enumerate(RATED_OPENING):
        userid = "bob" if ply % 2 else "alice"
        mails = post.send(f"emergo move {board} {userid} {userid}-pw1 {move}",
                          f"{userid}@example.org")  # fmt: skip
        assert mails and not any("Error" in str(m["Subject"]) for m in mails), subjects(mails)
    over = post.send(f"emergo resign {board} bob bob-pw1", BOB)
    assert subjects(over) == [(ALICE, f"Emergo Board {board} Game over"),
                              (BOB, f"Emergo Board {board} Game over")]  # fmt: skip
    assert "Rating changes: alice 1600 -> 1762 (+162), bob 1600 -> 1438 (-162)." in text(over[0])
    return over
