"""The types and text rules that the mail layer and the command layer share.

Neither layer owns these: the mail layer turns a stored message into a :class:`CommandMail`
and every :class:`Reply` into a mail; the command layer reads the one and returns the
other. Subject cleaning lives here too, and the address check
(:mod:`pbm_emergo.wire.addresses`, which the replies' builder below this layer uses) is
named here, so that both layers clean a Subject and check an address by the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbm_emergo.game.words import clean_subject as clean_subject
from pbm_emergo.wire.addresses import (
    a_label_ok,
    ascii_domain,
    clean_address,
    needs_smtputf8,
)

if TYPE_CHECKING:
    # Only named here: the listener, which shares these types, renders no reply.
    from pbm_emergo.views.reply_mail import Attachment

SENDER_AUTH_FAIL = "fail"
SENDER_AUTH_PASS = "pass"


@dataclass(frozen=True)
class CommandMail:
    """What the mail layer hands to the command layer."""

    sender: str  # the address to answer (From, else the envelope sender), lower-cased
    subject: str  # decoded Subject, Re:/Fwd:/AW: prefixes stripped, whitespace collapsed
    body: str  # first text/plain part (HTML-only mail converted to text), decoded
    message_id: str
    # The From domain's DMARC (else SPF) result in the Authentication-Results header of our
    # own MTA (RFC 8601; the configured authserv_id): "pass", "fail", "none" (no result), or
    # "" when no authserv_id is configured. "fail": the From address may well be forged.
    sender_auth: str = ""
    # The mail's Content-Language header ("" when none): the language of the replies to a
    # sender who has chosen none.
    content_language: str = ""

    @property
    def sender_trusted(self) -> bool:
        """Whether the From address may be taken at its word (not failed DMARC/SPF)."""
        return self.sender_auth != SENDER_AUTH_FAIL

    @property
    def sender_proven(self) -> bool:
        """Whether our MTA found that the From address passed DMARC (else SPF): "none" and
        no check at all prove nothing."""
        return self.sender_auth == SENDER_AUTH_PASS


@dataclass(frozen=True)
class Reply:
    """What the command layer returns; the mail layer builds the message from it."""

    to: str  # one address
    subject: str  # plain text; the mail layer sanitises it (no CR/LF, length-limited)
    body: str
    board: int | None = None  # the board it is about: one board's mails share a thread
    # An HTML picture of the same content (board mails): sent as multipart/alternative,
    # the text first.
    html: str | None = None
    # The recipient asked for mail like this (the board mail of their own game under way,
    # what a subscription sends): not charged to the sender who caused it (game.budget).
    solicited: bool = False
    # It carries a secret (a password an operator reset): its text leaves the outbox once
    # it is sent or given up.
    secret: bool = False
    # The account whose logged-in command caused it: a mail to others counts against that
    # account's hourly budget too (app.budget). None: no command logged in.
    account: int | None = None
    # A file sent with it (the game record of a finished board): multipart/mixed.
    attachment: Attachment | None = None
    # A board mail sent while a robot is to answer on its board: held for a short wait
    # (Config.robot_reply_wait) for the robot's board mail to take its place (app.outbox).
    awaits_robot: bool = False




__all__ = [
    "SENDER_AUTH_FAIL",
    "CommandMail",
    "Reply",
    "a_label_ok",
    "ascii_domain",
    "clean_address",
    "clean_subject",
    "needs_smtputf8",
]
