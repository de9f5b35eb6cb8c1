"""Mailing commands straight to the command layer, without a listener or a stored mail."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.config import Config
from pbm_emergo.mail.worker import answer
from tests.support.clock import START
from tests.support.signup import code_subject, confirmation_code

# The two players the fixtures sign up (tests/commands/conftest.py, tests/web/conftest.py).
PASSWORDS = {"alice": "alicepw", "bob": "bobpw"}
ADDRESSES = {"alice": "alice@example.org", "bob": "bob@example.org"}


class Mailer:
    """Sends command mails straight to the command layer, run as a worker runs them
    (``mail.worker.answer``: read, then write in one transaction), one minute apart on a
    simulated clock that starts at ``START``."""

    def __init__(self, factory: sessionmaker[Session], config: Config) -> None:
        self.factory = factory
        self.config = config
        self.now = START
        self.count = 0

    def send(
        self, subject: str, body: str = "", sender: str = "alice@example.org",
        sender_auth: str = "",
    ) -> list[Reply]:
        """``sender_auth``: what our MTA found of the From address (CommandMail)."""
        self.count += 1
        self.now += timedelta(minutes=1)
        mail = CommandMail(
            sender=sender, subject=subject, body=body, message_id=f"<m{self.count}@example.org>",
            sender_auth=sender_auth,
        )
        return answer(self.factory, mail, self.config, self.now)

    def signup(self, userid: str, password: str, sender: str) -> Reply:
        """``signup`` from ``sender``, then ``confirm`` with the code its answer carries
        (the address is not proven): the welcome."""
        code_mail = self.one(f"signup {userid} {password}", sender=sender)
        assert code_mail.subject == code_subject(userid), code_mail.body
        self.now -= timedelta(minutes=1)  # the confirm in the same minute: one step on the clock
        welcome = self.one(f"confirm {confirmation_code(code_mail.body)}", sender=sender)
        assert welcome.subject == f"Emergo: welcome {userid}", welcome.body
        return welcome

    def one(
        self, subject: str, body: str = "", sender: str = "alice@example.org",
        sender_auth: str = "",
    ) -> Reply:
        """Send and expect exactly one reply."""
        replies = self.send(subject, body, sender, sender_auth)
        assert len(replies) == 1, [(r.to, r.subject) for r in replies]
        return replies[0]

    def move(self, board: int, userid: str, move: str, comment: str = "") -> list[Reply]:
        """``emergo move`` by alice or bob, from their address, with their password."""
        return self.send(
            f"emergo move {board} {userid} {PASSWORDS[userid]} {move}",
            comment,
            sender=ADDRESSES[userid],
        )

    def play(self, board: int, moves: list[str], first_mover: str = "alice") -> list[Reply]:
        """Play ``moves`` in turn, ``first_mover`` first; the replies to the last one."""
        other = "bob" if first_mover == "alice" else "alice"
        replies: list[Reply] = []
        for i, move in enumerate(moves):
            replies = self.move(board, first_mover if i % 2 == 0 else other, move)
            assert replies and replies[0].subject.startswith("Emergo Board"), replies
            assert "Error" not in replies[0].subject, replies[0].body
        return replies
