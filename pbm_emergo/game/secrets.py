"""The mask shown for secrets, and what a mail's processing must keep out of every text it
sends or stores (see :mod:`pbm_emergo.commands.masking`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from pbm_emergo.game.messages import Reply

MASK = "********"
# Put in place of a comment line that held a verified password: masking the password inside
# the line would show where it stood, and with it a password that is an ordinary word.
PASSWORD_LINE_LEFT_OUT = "(a line that held your password was left out)"


@dataclass(frozen=True)
class Known:
    """The userids (lower case) and board numbers of a mail's words that exist."""

    userids: frozenset[str] = frozenset()
    boards: frozenset[int] = frozenset()


@dataclass
class Secrets:
    """What must not appear in any text that leaves a mail's processing: the hidden words
    of its command lines and the passwords verified while running it.

    In replies both are replaced as whole words (a password "game" leaves "games" alone);
    from the mail's own comment every line holding a verified password is left out.
    """

    words: set[str] = field(default_factory=set)
    passwords: set[str] = field(default_factory=set)
    _pattern: re.Pattern[str] | None = field(default=None, repr=False)

    def add_password(self, password: str) -> None:
        if password and password not in self.passwords:
            self.passwords.add(password)
            self._pattern = None

    def reveal(self, words: Iterable[str]) -> None:
        shown = {w for w in words if w in self.words and w not in self.passwords}
        if shown:
            self.words -= shown
            self._pattern = None

    def pattern(self) -> re.Pattern[str] | None:
        if self._pattern is None:
            secrets = sorted(self.words | self.passwords, key=len, reverse=True)
            self._pattern = (
                re.compile("|".join(rf"(?<![\w.@+-]){re.escape(w)}(?![\w@+-])" for w in secrets))
                if secrets
                else None
            )
        return self._pattern

    def scrub(self, text: str) -> str:
        """``text`` with every hidden word and verified password masked (whole words)."""
        if not text or not any(s in text for s in self.words) and not any(
            s in text for s in self.passwords
        ):
            return text  # the usual case, found with plain substring searches
        pattern = self.pattern()
        return text if pattern is None else pattern.sub(MASK, text)

    def scrub_comment(self, comment: str) -> str:
        """``comment`` without the lines that hold a verified password (anywhere in the
        line), each replaced by :data:`PASSWORD_LINE_LEFT_OUT`, and the rest scrubbed."""
        if any(p in comment for p in self.passwords):
            comment = "\n".join(
                PASSWORD_LINE_LEFT_OUT if any(p in line for p in self.passwords) else line
                for line in comment.split("\n")
            )
        return self.scrub(comment)

    def scrub_reply(self, reply: Reply) -> Reply:
        subject = self.scrub(reply.subject)
        body = self.scrub(reply.body)
        html = self.scrub(reply.html) if reply.html else reply.html
        if (subject, body, html) == (reply.subject, reply.body, reply.html):
            return reply
        return replace(reply, subject=subject, body=body, html=html)
