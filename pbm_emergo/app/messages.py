"""The types and text rules that the mail layer and the command layer share.

Neither layer owns these: the mail layer turns a stored message into a :class:`CommandMail`
and every :class:`Reply` into a mail; the command layer reads the one and returns the
other. Subject cleaning and the address check live here too, so that both layers clean a
Subject and check an address by the same rules.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import idna

from pbm_emergo.game.words import clean_subject as clean_subject

# An ASCII address: the local part in printable ASCII (RFC 5322 atext and dots); a control
# character has no business in a header.
_ADDRESS = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~.\-]{1,64}@[A-Za-z0-9.\-\[\]:]{1,190}")
# An internationalised address (RFC 6531/6532): the local part's ASCII characters are atext
# and dots as above, its others are UTF-8 letters, marks, digits, punctuation and symbols
# (no controls, format characters, spaces or line breaks, private-use or unassigned code
# points: see _UTF8_OK); the domain a host name whose labels IDNA2008 allows.
_UTF8_LOCAL_ASCII = frozenset("abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+/=?^_`{|}~.-")
_UTF8_OK = frozenset(("L", "M", "N", "P", "S"))
LOCAL_PART_OCTETS = 64
ADDRESS_OCTETS = 254
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


def clean_address(value: str | None) -> str | None:
    """A plain ``local@domain`` address, lower-cased, or None when ``value`` is not one.

    An ASCII address has a local part of atext and dots. A non-ASCII one (RFC 6531/6532,
    sent only where the relay takes SMTPUTF8) may have UTF-8 letters, digits, marks,
    punctuation and symbols in its local part and a domain of IDNA2008 U-labels; it is
    normalised to NFC, and text decoded with ``surrogateescape`` (what the ``email``
    package and aiosmtpd make of 8-bit bytes) is read as the UTF-8 it was. Lengths are
    counted in octets of UTF-8: at most 64 for the local part, 254 in all.
    """
    if not value:
        return None
    value = value.strip().strip("<>").strip().lower()
    if value.isascii():
        if len(value) > ADDRESS_OCTETS or not _ADDRESS.fullmatch(value):
            return None
        return value
    return _clean_utf8_address(value)


def _clean_utf8_address(value: str) -> str | None:
    try:
        octets = value.encode("utf-8", "surrogateescape")
        value = unicodedata.normalize("NFC", octets.decode("utf-8")).lower()
    except UnicodeError:  # not UTF-8 after all
        return None
    local, at, domain = value.rpartition("@")
    if not at or not local or not domain:
        return None
    if len(local.encode()) > LOCAL_PART_OCTETS or len(value.encode()) > ADDRESS_OCTETS:
        return None
    if local.startswith(".") or local.endswith(".") or ".." in local:
        return None
    for char in local:
        if char.isascii():
            if char not in _UTF8_LOCAL_ASCII:
                return None
        elif unicodedata.category(char)[0] not in _UTF8_OK:
            return None
    if ascii_domain(domain) is None:
        return None
    return value


def needs_smtputf8(address: str) -> bool:
    """Whether mail to or from ``address`` needs SMTPUTF8 (a UTF-8 address, RFC 6531)."""
    return not address.isascii()


def ascii_domain(domain: str) -> str | None:
    """The domain in its ASCII form (U-labels turned into A-labels by IDNA2008), or None
    when it is not a host name: a label that IDNA2008 does not allow, an A-label that does
    not decode, an empty or too long label (the domain already lower-case)."""
    try:
        encoded = idna.encode(domain).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        return None
    if not all(a_label_ok(label) for label in encoded.split(".")):
        return None
    return encoded


def a_label_ok(label: str) -> bool:
    """False for a label that claims to be an A-label (``xn--``) but is not a valid one."""
    if not label.startswith("xn--"):
        return True
    try:
        idna.decode(label)
    except (idna.IDNAError, UnicodeError):
        return False
    return True


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
