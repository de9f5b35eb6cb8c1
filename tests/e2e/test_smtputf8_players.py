"""Mail in UTF-8: a player at jörg@bücher.example, through the real listener
(smtplib, which asks for SMTPUTF8 by itself), the real workers and command layer, and a real
aiosmtpd relay that does or does not offer SMTPUTF8.

- With SMTPUTF8 at the relay: jörg signs up, challenges and moves; every mail to him is
  relayed to his UTF-8 address with SMTPUTF8 and a UTF-8 To header; an ASCII player's
  `change address` to a non-ASCII address gets its code there and is then confirmed.
- Without: jörg is refused at MAIL FROM (553 5.6.7, saying why) and nothing is stored; an
  ASCII player naming a non-ASCII address in `signup` or `change address` is told why not.
"""

from __future__ import annotations

import dataclasses
import re
import smtplib
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db.models import InboundMessage, Player, PlayerAddress
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support.mail import SERVER_ADDRESS, free_port
from tests.support.post import reply_ids, wait_for_replies
from tests.support.signup import confirmation_code
from tests.support.text import flat
from tests.support.utf8_relay import Relayed, Utf8Relay, send_any, utf8_mail

JOERG = "jörg@bücher.example"
ALICE = "alice@example.org"
ALICE_NEW = "älice@bücher.example"
CAROL = "carol@example.org"


def to_line(address: str) -> bytes:
    return f"To: {address}".encode()  # the header line as UTF-8 bytes (RFC 6532)


def header_lines(raw: bytes) -> list[bytes]:
    return raw.partition(b"\r\n\r\n")[0].split(b"\r\n")


def text(mail: Relayed) -> str:
    msg = mail.msg
    part = msg.get_body(("plain",)) if msg.is_multipart() else msg
    assert part is not None
    content = part.get_content()
    assert isinstance(content, str)
    return content.replace("\r\n", "\n")


class Post:
    """The server seen from outside: mail a command from any address, get what it caused."""

    def __init__(
        self, server: MailServer, relay: Utf8Relay, sessions: sessionmaker[Session]
    ) -> None:
        self.server, self.relay, self.sessions = server, relay, sessions
        self.count = 0

    def send(self, subject: str, sender: str) -> list[Relayed]:
        """Mail ``subject`` from ``sender``; wait until every mail it caused was relayed."""
        self.count += 1
        message_id = f"<utf8-{self.count}@example.org>"
        send_any(self.server.config.smtp_port, utf8_mail(subject, sender, message_id=message_id))

        count = wait_for_replies(self.sessions, message_id)
        with self.relay.handler.lock:
            ids = reply_ids(self.sessions, message_id)
            mails = [r for r in self.relay.handler.relayed if r.msg["Message-ID"] in ids]
        assert len(mails) == count
        return sorted(mails, key=lambda r: r.rcpt_tos)

    def stored(self) -> int:
        with self.sessions() as session:
            return session.scalar(select(func.count()).select_from(InboundMessage)) or 0


MakePost = Callable[[bool], Post]


@pytest.fixture
def make_post(
    db_config: Config, db_sessions: sessionmaker[Session], quick_argon2: None
) -> Iterator[MakePost]:
    started: list[tuple[MailServer, Utf8Relay]] = []

    def make(relay_takes_smtputf8: bool) -> Post:
        relay = Utf8Relay(smtputf8=relay_takes_smtputf8)
        relay.start()
        config = dataclasses.replace(
            db_config, address=SERVER_ADDRESS, smtp_port=free_port(), outbound=relay.url,
            reply_limit=100_000,
        )  # smtputf8 = "auto": the relay is asked
        server = MailServer(
            config, db_sessions, poll_seconds=0.2,
            backoff=Backoff(base=timedelta(milliseconds=100), cap=timedelta(seconds=1)),
        )
        server.start()
        started.append((server, relay))
        return Post(server, relay, db_sessions)

    yield make
    for server, relay in started:
        server.stop()
        relay.stop()


def assert_utf8_mail_to(mail: Relayed, address: str) -> None:
    assert mail.rcpt_tos == [address]
    assert mail.smtputf8, "sent without SMTPUTF8"
    assert to_line(address) in header_lines(mail.raw)
    assert mail.mail_from == SERVER_ADDRESS


def assert_plain_mail_to(mail: Relayed, address: str) -> None:
    assert mail.rcpt_tos == [address]
    assert not mail.smtputf8
    assert mail.raw.partition(b"\r\n\r\n")[0].isascii()


def test_a_non_ascii_player_signs_up_and_plays_where_the_relay_takes_smtputf8(
    make_post: MakePost, db_sessions: sessionmaker[Session]
) -> None:
    post = make_post(True)
    # The answer to the signup is the code for his address, in UTF-8 like the welcome.
    [code_mail] = post.send("signup joerg joerg-pw1", JOERG)
    assert_utf8_mail_to(code_mail, JOERG)
    [welcome] = post.send(f"confirm {confirmation_code(text(code_mail))}", JOERG)
    assert_utf8_mail_to(welcome, JOERG)
    assert welcome.msg["Subject"] == "Emergo: welcome joerg"
    assert JOERG in text(welcome)
    [code_mail] = post.send("signup alice alice-pw1", ALICE)
    [welcome] = post.send(f"confirm {confirmation_code(text(code_mail))}", ALICE)
    assert_plain_mail_to(welcome, ALICE)
    # The address is stored in NFC, as the key of his mail.
    with db_sessions() as session:
        stored = session.scalars(
            select(PlayerAddress.address).join(Player).where(Player.userid_key == "joerg")
        ).all()
    assert stored == [JOERG]

    # jörg challenges alice: one board mail each, his in UTF-8, hers plain.
    to_alice, to_joerg = post.send("emergo challenge joerg alice", JOERG)
    assert_utf8_mail_to(to_joerg, JOERG)
    assert_plain_mail_to(to_alice, ALICE)
    subject = str(to_joerg.msg["Subject"])
    assert subject.startswith("New Emergo Board ") and subject.endswith(" joerg")
    board = int(subject.split()[3])

    to_alice, to_joerg = post.send(f"emergo move {board} joerg joerg-pw1 e4#1", JOERG)
    assert_utf8_mail_to(to_joerg, JOERG)
    assert_plain_mail_to(to_alice, ALICE)
    assert "It is alice's turn" in text(to_joerg) and "1. e4" in text(to_joerg)
    to_alice, to_joerg = post.send(f"emergo move {board} alice alice-pw1 d6#2", ALICE)
    assert_utf8_mail_to(to_joerg, JOERG)
    assert "It is joerg's turn" in text(to_joerg)

    # An ASCII player names a non-ASCII address: its code is mailed there with SMTPUTF8.
    changed, code_mail = post.send(f"change address alice alice-pw1 {ALICE_NEW}", ALICE)
    assert_plain_mail_to(changed, ALICE)
    assert_utf8_mail_to(code_mail, ALICE_NEW)
    assert code_mail.msg["Subject"] == "Emergo: please confirm your address for alice"
    match = re.search(r"confirm ([0-9A-Z]{4}(?:-[0-9A-Z]{4}){3})", text(code_mail))
    assert match is not None
    # Confirmed from the new address itself (a non-ASCII sender), board mails go there.
    confirmed = post.send(f"confirm {match[1]}", ALICE_NEW)
    assert sorted(m.rcpt_tos[0] for m in confirmed) == sorted([ALICE, ALICE_NEW])
    mails = post.send(f"emergo move {board} joerg joerg-pw1 c4#3", JOERG)
    assert [m.rcpt_tos for m in mails] == [[JOERG], [ALICE_NEW]]  # sorted: "j" < "ä"
    for mail, address in zip(mails, (JOERG, ALICE_NEW), strict=True):
        assert_utf8_mail_to(mail, address)
        assert "It is alice's turn" in text(mail)


def test_a_non_ascii_player_is_told_why_not_where_the_relay_lacks_smtputf8(
    make_post: MakePost, db_sessions: sessionmaker[Session]
) -> None:
    post = make_post(False)
    with pytest.raises(smtplib.SMTPSenderRefused) as refused:
        send_any(post.server.config.smtp_port,
                 utf8_mail("signup joerg joerg-pw1", JOERG, message_id="<refused@example.org>"))
    assert refused.value.smtp_code == 553
    reason = refused.value.smtp_error.decode()
    assert reason.startswith("5.6.7 ")
    assert "mail relay cannot deliver to non-ASCII addresses" in reason
    assert "write from a plain ASCII address" in reason
    assert post.stored() == 0

    [code_mail] = post.send("signup alice alice-pw1", ALICE)
    [welcome] = post.send(f"confirm {confirmation_code(text(code_mail))}", ALICE)
    assert_plain_mail_to(welcome, ALICE)
    # An ASCII player naming a non-ASCII address gets a reply that says why not.
    for command, sender in ((f"change address alice alice-pw1 {ALICE_NEW}", ALICE),
                            (f"signup carol carol-pw1 {CAROL} {ALICE_NEW}", CAROL)):  # fmt: skip
        [error] = post.send(command, sender)
        assert_plain_mail_to(error, sender)
        assert error.msg["Subject"] == "Emergo error"
        first = flat(text(error).split("\n\n")[0])
        assert "mail relay cannot deliver to non-ASCII addresses" in first
        assert "plain ASCII address" in first
        # Not named: a word not known to be no password is masked in every reply.
        assert ALICE_NEW not in text(error)
    assert not any(ALICE_NEW in r.rcpt_tos for r in post.relay.handler.relayed)
    with db_sessions() as session:
        assert session.scalars(select(Player).where(Player.userid_key == "carol")).first() is None
        addresses = session.scalars(
            select(PlayerAddress.address).join(Player).where(Player.userid_key == "alice")
        ).all()
    assert addresses == [ALICE]
