"""The copy of a processed mail the server keeps: its passwords taken out.

A mail is stored as received (accepted means stored) and processed from that copy; once it
is processed, the original is replaced by a redacted copy: a plain-text message with the
headers that say who sent what and when, the Subject, and the part of the body the server
read (the command lines of a ``multiple`` mail, else the comment up to a signature or quoted
text), every word its command lines hide (see :mod:`pbm_emergo.commands.masking`, which
hides every password) masked. Quoted and forwarded text, attachments, HTML and the other
headers are dropped: a password in a quoted copy of some mail cannot survive there. A dead
letter keeps its original (it is run again when the operator requeues it); the retention
period removes every raw mail, redacted or not, after ``Config.raw_retention_days``.
"""

from __future__ import annotations

from collections.abc import Callable
from email import base64mime, policy
from email.header import Header
from email.message import Message
from email.parser import BytesHeaderParser

from pbm_emergo.wire import policies

# The headers kept in the redacted copy (besides the Subject, which is masked).
KEPT_HEADERS = ("From", "Sender", "Reply-To", "To", "Cc", "Date", "Message-ID", "In-Reply-To",
                "References", "Auto-Submitted", "Precedence", "Authentication-Results")
REDACTED_HEADER = "X-Pbm-Emergo-Redacted"


def _header(value: str) -> str:
    # One line (every run of whitespace, CR and LF included, made one space), and
    # RFC 2047-encoded when it is not ASCII.
    line = " ".join(value.split())
    return line if line.isascii() else Header(line, "utf-8").encode()


def redacted_copy(raw: bytes, subject: str, body: str, scrub: Callable[[str], str]) -> bytes:
    """The redacted copy of the mail ``raw``: some of its headers passed through ``scrub``,
    and the ``subject`` and ``body`` kept of it (already masked). Built with the library's
    compat32 classes: a tenth of the cost of the modern header registry, and every value is
    put on one line first, so no header can be made of user text."""
    # What MIMEText(body, "plain", "utf-8") makes, without its charset parameter set and
    # read back: the headers written as it writes them, the text in base64.
    message = Message()
    message["Content-Type"] = 'text/plain; charset="utf-8"'
    message["MIME-Version"] = "1.0"
    message["Content-Transfer-Encoding"] = "base64"
    message.set_payload(base64mime.body_encode((body or "\n").encode("utf-8")))
    kept = {name.lower() for name in KEPT_HEADERS}
    try:
        headers = BytesHeaderParser(policy=policy.compat32).parsebytes(raw).items()
    except Exception:  # noqa: BLE001 - unreadable headers: keep none of them
        headers = []
    seen: set[str] = set()
    for name, value in headers:
        key = name.lower()
        if key in kept and key not in seen:
            seen.add(key)
            message[name] = _header(scrub(str(value)))
    message["Subject"] = _header(subject)
    message[REDACTED_HEADER] = "passwords, quoted text and attachments removed"
    return message.as_bytes(policy=policies.COMPAT32)  # compat32, as the message has it
