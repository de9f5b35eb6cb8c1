"""Signing players up as the server now asks: a signup from an address not proven by our
MTA is answered with a code for that address, and ``confirm CODE`` registers it."""

from __future__ import annotations

import re
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import OutboundMessage

# A code as the server shows it: four groups of four of Crockford's base32.
CODE = re.compile(r"confirm ([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})")


def confirmation_code(text: str) -> str:
    """The code in the text of a code mail (``confirm K7QX-M2PD-9HTR-B4NE``)."""
    match = CODE.search(text)
    assert match is not None, text
    return match[1]


def code_subject(userid: str) -> str:
    """The Subject of the mail that carries an address's code."""
    return f"Emergo: confirm your address for {userid}"


def codes_in_outbox(sessions: sessionmaker[Session]) -> dict[str, str]:
    """The latest code mailed to each address, read from the outbox (for tests that drive
    the server through a listener and do not read the relay's mail)."""
    with sessions() as session:
        rows = session.execute(
            select(OutboundMessage.recipient, OutboundMessage.raw)
            .where(OutboundMessage.subject.like("Emergo: %confirm your address for %"))
            .order_by(OutboundMessage.id)
        ).all()
    codes: dict[str, str] = {}
    for recipient, raw in rows:
        msg = BytesParser(policy=policy.default).parsebytes(raw)
        assert isinstance(msg, EmailMessage)
        part = msg.get_body(("plain",))
        assert part is not None
        codes[recipient] = confirmation_code(part.get_content())
    return codes
