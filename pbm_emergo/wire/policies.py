"""The ``email`` policies the server parses and writes mail with.

They are the standard library's ``policy.default`` (parsing) and ``policy.SMTP`` (writing,
CRLF line ends), with one change through the policy's documented ``header_factory`` hook:
the header registry keeps the header classes it makes. The stock registry builds a new
class with ``type()`` for every header of every message, which was a third of the time it
took to write a board mail; the classes depend only on the header's name, so keeping them
changes nothing else. Mail to a non-ASCII address is written with ``utf8=True`` (RFC 6532).

Our replies are built and written with :data:`WRITE_COMPAT32`, the library's ``compat32``
policy with CRLF line ends (see :mod:`pbm_emergo.views.reply_mail`): it stores the header values
it is given (folded by the reply module) and writes them as they are, without parsing them
into header objects first, which made a board mail three times cheaper to build and write.
"""

from __future__ import annotations

import re
from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage
from typing import Any


class CachedHeaderRegistry(HeaderRegistry):
    """A :class:`HeaderRegistry` that makes each header class once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._classes: dict[str, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        cls = self._classes.get(key)
        if cls is None:
            cls = self._classes[key] = super().__getitem__(name)
        return cls


class ReadingHeaderRegistry(CachedHeaderRegistry):
    """The registry mail is read with: also the parsed value of each MIME structure header
    (Content-Type, Content-Transfer-Encoding, Content-Disposition, MIME-Version) is kept,
    by its exact text. The library parses such a header anew every time it is read, and
    reading one mail reads its Content-Type several times (the parser itself, then the
    body and report checks); most mails carry the same few values. Header objects do not
    change once made. Only these headers: they say how a mail is built, never what someone
    wrote in it (no Subject, no address is kept)."""

    KEPT = frozenset({"content-type", "content-transfer-encoding", "content-disposition",
                      "mime-version"})
    LIMIT = 512  # distinct values kept; then the memory starts over

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._values: dict[tuple[str, str], BaseHeader] = {}

    def __call__(self, name: str, value: str) -> BaseHeader:
        if name.lower() not in self.KEPT:
            return super().__call__(name, value)
        key = (name, value)
        header = self._values.get(key)
        if header is None:
            if len(self._values) >= self.LIMIT:
                self._values.clear()
            header = self._values[key] = super().__call__(name, value)
        return header


# A header value of printable ASCII on one line, without space at either end.
_PLAIN_VALUE = re.compile(r"[!-~](?:[ -~]*[!-~])?")


class Compat32Writing(policy.Compat32):
    """``compat32`` as our replies are written with it: a plain header value (printable
    ASCII on one line that fits, as nearly every header of a reply is) is written as it is,
    which is what compat32's :class:`email.header.Header` round makes of it too, without
    that round (a tenth of the time it took to build and write a board mail)."""

    def fold_binary(self, name: str, value: Any) -> bytes:
        if (
            isinstance(value, str)
            and len(name) + 2 + len(value) <= (self.max_line_length or 0)
            and _PLAIN_VALUE.fullmatch(value)
        ):
            return f"{name}: {value}{self.linesep}".encode("ascii")
        return super().fold_binary(name, value)


# Reading mail: policy.default; writing it: policy.SMTP (CRLF), each with a cached registry.
READ = policy.default.clone(header_factory=ReadingHeaderRegistry())
WRITE = policy.SMTP.clone(header_factory=CachedHeaderRegistry())
# Writing mail to a non-ASCII address (RFC 6532): headers in UTF-8 as they are, since an
# address cannot be an encoded word; such mail is sent only with SMTPUTF8.
WRITE_UTF8 = WRITE.clone(utf8=True)
# Building and writing our replies: compat32, CRLF, no ">From " in bodies (as_bytes never
# mangles; a generator given compat32 would), and header lines folded only beyond SMTP's 998
# octets: the reply module folds its values to 78 characters when it stores them (the
# Header folder would give a value with a long first word a space in front).
WRITE_COMPAT32 = Compat32Writing(linesep="\r\n", mangle_from_=False, max_line_length=998)
# The library's compat32 as it is (the redacted copies of processed mail), plain values
# written without the Header round.
COMPAT32 = Compat32Writing()


def write_policy(address: str) -> policy.EmailPolicy[EmailMessage]:
    """The policy to write a mail to ``address`` with: UTF-8 headers for a non-ASCII one."""
    return WRITE if address.isascii() else WRITE_UTF8


__all__ = [
    "COMPAT32", "READ", "WRITE", "WRITE_COMPAT32", "WRITE_UTF8", "CachedHeaderRegistry",
    "ReadingHeaderRegistry", "write_policy",
]
