"""What the command layer and the shell share about the words of a mail: which of them are
known to exist, the mask shown for a secret, the rules a userid follows.

The command layer (:mod:`pbm_emergo.commands.masking`) decides from these which words of a
command line may be shown; the shell (:mod:`pbm_emergo.app`) finds which words are known
(the database) and keeps the hidden ones out of every reply (:mod:`pbm_emergo.app.secrets`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

MASK = "********"

# Reply prefixes in the languages mail clients use: Re:, Fwd:, AW:, SV:, Antw: ...
_PREFIX = re.compile(
    r"^\s*(?:(?:re|fwd?|aw|wg|sv|vs|antw|tr|rv|odp|ynt)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*)+",
    re.IGNORECASE,
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_WHITESPACE = re.compile(r"\s+")
SUBJECT_LIMIT = 1000

# At most this many command lines of one `multiple` mail are run; the rest are reported as
# Unprocessed, this many of them echoed in the report (the others counted).
MAX_COMMAND_LINES = 30
MAX_UNPROCESSED_SHOWN = 10

USERID_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{1,15}")
MIN_PASSWORD = 4

# Words a userid may not be: command words, filter words and names that would confuse a
# reader of a board mail or a mail system.
RESERVED_USERIDS = frozenset(
    [
        "accept",
        "active",
        "address",
        "admin",
        "administrator",
        "all",
        "autoplay",
        "black",
        "board",
        "boards",
        "challenge",
        "change",
        "chat",
        "clear",
        "draw",
        "eks",
        "emergo",
        "end",
        "games",
        "help",
        "history",
        "inactive",
        "list",
        "mailer-daemon",
        "message",
        "move",
        "moves",
        "multiple",
        "next",
        "nobody",
        "none",
        "off",
        "ohs",
        "password",
        "postmaster",
        "preview",
        "propose",
        "queue",
        "ratings",
        "record",
        "reject",
        "resign",
        "root",
        "server",
        "show",
        "signoff",
        "signup",
        "standings",
        "subscribe",
        "undo",
        "unsubscribe",
        "unrated",
        "vacation",
        "white",
        "pbmserv",
        "diagram",
        "rules",
    ]
)


@dataclass(frozen=True)
class Known:
    """The userids (lower case) and board numbers of a mail's words that exist."""

    userids: frozenset[str] = frozenset()
    boards: frozenset[int] = frozenset()
    # Words written as userids where a command that takes no password expects one, no
    # player's, and checked not to be the sender's password: shown, so that an error can
    # name the typo ("There is no player 'robot9'"). Only the worker checks (it verifies
    # passwords anyway); the listener never does, so it stores and logs them masked.
    not_passwords: frozenset[str] = frozenset()

    def to_stored(self) -> dict[str, list[Any]]:
        """As stored with the mail (see :meth:`from_stored`): what the listener found
        (:attr:`not_passwords` is the worker's)."""
        return {"userids": sorted(self.userids), "boards": sorted(self.boards)}

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> Known:
        """What :meth:`to_stored` stored."""
        return cls(
            userids=frozenset(str(u) for u in stored["userids"]),
            boards=frozenset(int(b) for b in stored["boards"]),
        )


# Which of some command lines' words are known to exist (the shell asks the database).
Lookup = Callable[[Iterable[str]], Known]


def clean_subject(subject: str) -> str:
    """The command line of a Subject: control characters and runs of white space become one
    space, ``Re:``/``Fwd:``/``AW:``... prefixes are dropped, the length is capped."""
    subject = _WHITESPACE.sub(" ", _CONTROL.sub(" ", subject)).strip()
    return _PREFIX.sub("", subject).strip()[:SUBJECT_LIMIT]
