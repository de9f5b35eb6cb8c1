"""Mail addresses: which text is a plain address, and its ASCII form.

The mail layer checks the addresses it reads, the command layer the ones players give, and
a reply is built only to an address checked here, all by the same rules.
"""

from __future__ import annotations

import re
import unicodedata

import idna

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
    "ADDRESS_OCTETS",
    "LOCAL_PART_OCTETS",
    "a_label_ok",
    "ascii_domain",
    "clean_address",
    "needs_smtputf8",
]
