"""The marks our replies carry, which the mail layer recognises when mail comes back."""

from __future__ import annotations

import re

# Our own marker: a mail carrying it came from a pbm-emergo server and is never answered.
LOOP_HEADER = "X-PBM-Emergo-Loop"
# The idstring in the Message-ID of our error replies (see views.reply_mail): a mail naming
# one in In-Reply-To or References answers an error of ours.
ERROR_ID_STRING = "pbm-emergo-error"
# The Subjects of our error replies: "Emergo error", "Emergo Board 101 Error".
_ERROR_SUBJECT = re.compile(r"emergo (?:board \d{1,9} )?error", re.IGNORECASE)


def is_error_subject(subject: str) -> bool:
    """Whether ``subject`` is the Subject of one of our error replies."""
    return _ERROR_SUBJECT.fullmatch(" ".join(subject.split())) is not None


__all__ = ["ERROR_ID_STRING", "LOOP_HEADER", "is_error_subject"]
