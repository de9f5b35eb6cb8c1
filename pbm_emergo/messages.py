"""The types and text rules that the mail layer and the command layer share.

Neither layer owns these: the mail layer turns a stored message into a :class:`CommandMail`
and every :class:`Reply` into a mail; the command layer reads the one and returns the
other. Subject cleaning and the address check live here too, so that both layers clean a
Subject and check an address by the same rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Reply prefixes in the languages mail clients use: Re:, Fwd:, AW:, SV:, Antw: ...
_PREFIX = re.compile(
    r"^\s*(?:(?:re|fwd?|aw|wg|sv|vs|antw|tr|rv|odp|ynt)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*)+",
    re.IGNORECASE,
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_WHITESPACE = re.compile(r"\s+")
# The local part in printable ASCII only (RFC 5322 atext and dots): smtplib sends commands in
# ASCII, and a control character has no business in a header.
_ADDRESS = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~.\-]{1,64}@[A-Za-z0-9.\-\[\]:]{1,190}")
SUBJECT_LIMIT = 1000
SENDER_AUTH_FAIL = "fail"


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
    # The command line as the listener showed it on receipt (only words known not to be
    # secret; see commands.masking), so that the command layer need not look them up again.
    shown: str = ""

    @property
    def sender_trusted(self) -> bool:
        """Whether the From address may be taken at its word (not failed DMARC/SPF)."""
        return self.sender_auth != SENDER_AUTH_FAIL


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


def clean_subject(subject: str) -> str:
    """The command line of a Subject: control characters and runs of white space become one
    space, ``Re:``/``Fwd:``/``AW:``... prefixes are dropped, the length is capped."""
    subject = _WHITESPACE.sub(" ", _CONTROL.sub(" ", subject)).strip()
    return _PREFIX.sub("", subject).strip()[:SUBJECT_LIMIT]


def clean_address(value: str | None) -> str | None:
    """A plain ``local@domain`` address, lower-cased, or None when ``value`` is not one."""
    if not value:
        return None
    value = value.strip().strip("<>").strip().lower()
    if len(value) > 254 or not _ADDRESS.fullmatch(value):
        return None
    return value


__all__ = ["SENDER_AUTH_FAIL", "CommandMail", "Reply", "clean_address", "clean_subject"]
