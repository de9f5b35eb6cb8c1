"""The mask shown for secrets, and what a mail's processing must keep out of every text it
sends or stores (see :mod:`pbm_emergo.commands.masking`)."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from pbm_emergo.app.messages import Reply
from pbm_emergo.game.words import MASK
from pbm_emergo.views.fit import refit_shortened
from pbm_emergo.views.rendered import Rendered, Span, spans_of

# Put in place of a comment line that held a verified password: masking the password inside
# the line would show where it stood, and with it a password that is an ordinary word.
PASSWORD_LINE_LEFT_OUT = "(a line that held your password was left out)"
# The words of the server's own Subject lines ("Emergo error", "New Emergo Board 101 alice",
# "Emergo: welcome alice" ...). A Subject is made of these, numbers, dates, command names and
# the userids of players, never of the sender's words, so a secret that is one of these words
# is left alone in a Subject: masking it would show which word the password is.
SUBJECT_WORDS = frozenset({
    "Emergo", "Board", "Error", "error", "New", "Game", "over", "help", "Nag", "queue", "declined",
    "multiple", "done", "failed", "chat", "Message", "message", "from", "boards", "preview",
    "record", "moves", "history", "standings", "games", "seek", "seeks", "challenges", "notice",
    "notices", "welcome", "goodbye", "password", "changed", "vacation", "ended", "on", "until",
    "of", "subscriptions", "autoplay", "for", "please", "confirm", "your", "address", "addresses",
    "sent", "this", "server", "off",
})


# How much of a word the error messages quote at most (``'{word[:40]}' is not ...``).
QUOTED_CUTS = (40, 80)


@dataclass
class Secrets:
    """What must not appear in any text that leaves a mail's processing: the hidden words
    of its command lines and the passwords verified while running it.

    In replies both are replaced as whole words (a password "game" leaves "games" alone),
    and only where the reply quotes something: in a rendered text the values the template
    put in (:mod:`pbm_emergo.views.rendered`), in a text of unknown origin everywhere; a
    Subject keeps the server's own words (:data:`SUBJECT_WORDS`). From the mail's own
    comment every line holding a verified password is left out.
    """

    words: set[str] = field(default_factory=set)
    passwords: set[str] = field(default_factory=set)
    _pattern: re.Pattern[str] | None = field(default=None, repr=False)
    _forms: frozenset[str] | None = field(default=None, repr=False)

    def add_password(self, password: str) -> None:
        if password and password not in self.passwords:
            self.passwords.add(password)
            self._pattern = self._forms = None

    def reveal(self, words: Iterable[str]) -> None:
        shown = {w for w in words if w in self.words and w not in self.passwords}
        if shown:
            self.words -= shown
            self._pattern = self._forms = None

    def forms(self) -> frozenset[str]:
        """Every form of the secrets a reply may quote (:func:`quoted_forms`)."""
        if self._forms is None:
            self._forms = frozenset(
                form for secret in self.words | self.passwords for form in quoted_forms(secret)
            )
        return self._forms

    def pattern(self) -> re.Pattern[str] | None:
        if self._pattern is None:
            secrets = sorted(self.forms(), key=len, reverse=True)
            self._pattern = (
                re.compile("|".join(rf"(?<![\w.@+-]){re.escape(w)}(?![\w@+-])" for w in secrets))
                if secrets
                else None
            )
        return self._pattern

    def _found_in(self, text: str) -> bool:
        """Whether a secret may be in ``text`` (plain substring searches: the usual case is
        no)."""
        return bool(text) and any(s in text for s in self.forms())

    def scrub(self, text: str) -> str:
        """``text`` with every hidden word and verified password masked (whole words); in a
        rendered text only where it touches a value the template put in."""
        if not self._found_in(text):
            return text
        pattern = self.pattern()
        if pattern is None:
            return text
        spans = spans_of(text)
        if spans is None:
            return pattern.sub(MASK, text)
        return pattern.sub(lambda m: MASK if _touches(spans, m.span()) else m[0], text)

    def scrub_kept(self, text: str) -> Rendered:
        """``text`` scrubbed as :meth:`scrub` scrubs it, as a rendered text that keeps its
        value spans (a mask counts as a value), so that it may be stored (marked) and put
        into another template later with its own words told from its values."""
        spans = spans_of(text)
        if spans is None:
            spans = ((0, len(text)),) if text else ()
        pattern = self.pattern() if self._found_in(text) else None
        masked = (
            [] if pattern is None
            else [m.span() for m in pattern.finditer(text) if _touches(spans, m.span())]
        )
        if not masked:
            return text if isinstance(text, Rendered) else Rendered(text, spans)
        parts: list[str] = []
        at = 0
        for start, end in masked:
            parts += [text[at:start], MASK]
            at = end

        def moved(position: int, *, end: bool) -> int:
            """Where ``position`` of ``text`` is in the scrubbed text (inside a masked word:
            that mask's start, or for the ``end`` of a span its end)."""
            shift = 0
            for start, stop in masked:
                if position <= start:
                    break
                if position < stop:
                    return start + shift + (len(MASK) if end else 0)
                shift += len(MASK) - (stop - start)
            return position + shift

        kept = [(moved(s, end=False), moved(e, end=True)) for s, e in spans]
        kept += [(moved(s, end=False), moved(s, end=False) + len(MASK)) for s, _ in masked]
        merged: list[Span] = []
        for start, end in sorted(kept):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        return Rendered("".join([*parts, text[at:]]), tuple(merged))

    def scrub_subject(self, subject: str) -> str:
        """``subject`` with every secret masked but the server's own :data:`SUBJECT_WORDS`."""
        if not self._found_in(subject):
            return subject
        pattern = self.pattern()
        if pattern is None:
            return subject
        return pattern.sub(lambda m: m[0] if m[0] in SUBJECT_WORDS else MASK, subject)

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
        subject = self.scrub_subject(reply.subject)
        body = self.scrub(reply.body)
        if body != reply.body:
            # A masked word is seldom as long as the word was: its lines fitted again.
            body = refit_shortened(str(reply.body), body)
        html = self.scrub(reply.html) if reply.html else reply.html
        if (subject, body, html) == (reply.subject, reply.body, reply.html):
            return reply
        return replace(reply, subject=subject, body=body, html=html)


def quoted_forms(secret: str) -> set[str]:
    """``secret`` and the forms of it that replies may quote: lower-cased (an unknown
    command, a help topic), cut to the 40 or 80 characters an error message quotes of a word,
    and the domain of an address-like word (an error names the domain it found wrong)."""
    forms = {secret, secret.lower()}
    for cut in QUOTED_CUTS:
        if len(secret) > cut:
            forms |= {secret[:cut], secret.lower()[:cut]}
    if "@" in secret:
        domain = secret.rsplit("@", 1)[1]
        if domain:
            forms |= quoted_forms(domain)
    return forms


def _touches(spans: tuple[Span, ...], found: Span) -> bool:
    """Whether the text at ``found`` overlaps one of ``spans`` (sorted, not overlapping, so
    their ends rise too: the last one to start before ``found`` ends is the one to check)."""
    start, end = found
    before = bisect_left(spans, (end,))
    return before > 0 and spans[before - 1][1] > start
