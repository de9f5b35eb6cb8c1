"""A mail's commands, read once: :class:`CommandText`.

The listener reads a mail's Subject and body into a :class:`CommandText` on receipt
(:func:`pbm_emergo.mail.commands.describe`) and stores it with the mail; the row's description
(the command as it may be shown) and the boards a worker keeps in order come from it, and so
do the worker's run of the commands (:func:`pbm_emergo.app.dispatcher.dispatch`), its
passwords checked ahead and the redacted copy of the mail it keeps
(:func:`pbm_emergo.mail.commands.redact`). Nothing on the way reads the Subject and body again.

A mail carries one command in its Subject (pbmserv style); its body is the comment. A
Subject of ``multiple`` makes every body line a command; a Subject that is no command has
its commands read from the body (see :mod:`pbm_emergo.commands.body`). Only the lines
above the body's first quoted or forwarded line are read, as the mail layer found it when it
parsed the mail (:mod:`pbm_emergo.mail.quotes`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pbm_emergo.commands import body, masking
from pbm_emergo.game.words import (
    MAX_COMMAND_LINES,
    MAX_UNPROCESSED_SHOWN,
    Known,
    Lookup,
    clean_subject,
)

# Given the words a mail hides, a function that takes them out of a text (the shell's
# :class:`~pbm_emergo.app.secrets.Secrets`).
Scrubber = Callable[[set[str]], Callable[[str], str]]

# A comment (the body of a move) is cut after this many lines / characters.
MAX_COMMENT_LINES = 40
MAX_COMMENT_CHARS = 4000

# The board a command line names: its first argument, after "emergo WORD".
_BOARD_ARGUMENT = re.compile(r"^emergo\s+[a-z]+\s+([0-9]{1,9})\b", re.IGNORECASE)


@dataclass
class BodyLines:
    """The command lines of a body and what was left out."""

    commands: list[str] = field(default_factory=list)
    unprocessed: list[str] = field(default_factory=list)
    ignored: int = 0
    stopped_at: str | None = None  # why reading stopped, in words


def _stop_reason(line: str) -> str | None:
    if line.rstrip("\r\n") in ("-- ", "--") or line.strip() == "--":
        return "the signature"
    if line.strip().lower() == "end":
        return "the line 'end'"
    return None


def body_text_lines(
    text: str, quote_at: int | None = None
) -> tuple[list[str], str | None, int]:
    """The lines of ``text`` (a body) before a signature, ``end`` or quoted text.

    ``quote_at`` is the index of the first quoted or forwarded line among
    ``text.splitlines()``, as the mail layer found it when it parsed the mail
    (:func:`pbm_emergo.mail.quotes.quote_start`); None: the body quotes nothing.
    Returns the lines, why reading stopped (or None) and how many lines were left out.
    """
    lines = text.splitlines()
    end = len(lines) if quote_at is None else max(0, min(quote_at, len(lines)))
    for index, line in enumerate(lines[:end]):
        reason = _stop_reason(line)
        if reason:
            # A signature marker or 'end' is not content.
            left = [x for x in lines[index + 1 :] if x.strip()]
            return lines[:index], reason, len(left)
    if end < len(lines):
        # A quoted line is content: it counts as left out.
        return lines[:end], "quoted text", len([x for x in lines[end:] if x.strip()])
    return lines, None, 0


def command_lines(
    text: str, limit: int = MAX_COMMAND_LINES, *, quote_at: int | None = None
) -> BodyLines:
    """Split the body of a ``multiple`` mail into the command lines to run (``quote_at``:
    see :func:`body_text_lines`)."""
    return _command_lines(*body_text_lines(text, quote_at), limit=limit)


def _command_lines(
    lines: list[str], reason: str | None, ignored: int, *, limit: int = MAX_COMMAND_LINES
) -> BodyLines:
    result = BodyLines(ignored=ignored, stopped_at=reason)
    for line in lines:
        text = " ".join(line.split())
        if not text:
            continue
        if len(result.commands) < limit:
            result.commands.append(text)
        else:
            result.unprocessed.append(text)
    return result


def comment_text(text: str, *, quote_at: int | None = None) -> str:
    """The comment of a command mail: the body before any signature or quoted text
    (``quote_at``: see :func:`body_text_lines`)."""
    return _comment(body_text_lines(text, quote_at)[0])


def _comment(lines: list[str]) -> str:
    lines = list(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    text = "\n".join(line.rstrip() for line in lines[:MAX_COMMENT_LINES])
    return text[:MAX_COMMENT_CHARS]


def masked(line: str, known: Known | None = None) -> str:
    """``line`` as it may be echoed: only the words recognised as not secret (see
    :mod:`pbm_emergo.commands.masking`; ``known``: the userids and boards that exist)."""
    return masking.mask_line(line, known or Known())


@dataclass(frozen=True)
class CommandText:
    """The commands of one mail as read from its Subject and body, once, on receipt.

    ``line`` is the command line to run (the Subject, or the body's one command line;
    ``multiple`` for a mail of several); ``lines`` are the lines run, in order (the body's
    of a ``multiple`` mail, else ``line``), ``unprocessed`` a ``multiple`` body's lines
    beyond :data:`MAX_COMMAND_LINES`. ``comment`` is the text a single command carries (a
    move's comment, a chat). ``command`` is the command as it may be shown (logs, ``admin
    mail``): only words known not to be secret, found with the database on receipt; ""
    when read without one. ``known``: the userids and boards of ``line`` found to exist
    then (None for a ``multiple`` mail, one read without the database, or one stored
    before it was kept).
    """

    subject: str  # the mail's Subject (as parsed: prefixes stripped)
    line: str
    lines: tuple[str, ...]
    multiple: bool = False
    # The command(s) came from the body (one line: the body's other lines are its comment).
    from_body: bool = False
    comment: str = ""
    unprocessed: tuple[str, ...] = ()
    ignored: int = 0  # lines after a signature, `end` or quoted text
    stopped_at: str | None = None  # why reading the body stopped, in words
    boards: tuple[int, ...] = ()  # the boards the command lines name, in order, each once
    command: str = ""
    known: Known | None = None

    @classmethod
    def read(
        cls,
        subject: str,
        text: str,
        lookup: Lookup | None = None,
        *,
        quote_at: int | None = None,
    ) -> CommandText:
        """The commands of a mail with Subject ``subject`` and body ``text``; ``lookup``
        finds which of their words are existing userids and boards (shown in ``command``);
        ``quote_at``: the body's first quoted line, as the mail layer found it on parsing
        (see :func:`body_text_lines`). Only the lines above it are read: a command line
        or a header block in quoted text is never run, and never part of a comment."""
        lines, reason, ignored = body_text_lines(text, quote_at)
        reading = body.read(clean_subject(subject), lines)
        fields: dict[str, Any]
        if reading.multiple:
            found = _command_lines(lines, reason, ignored)
            fields = {
                "lines": tuple(found.commands),
                "multiple": True,
                "from_body": reading.from_body,
                "unprocessed": tuple(found.unprocessed),
                "ignored": found.ignored,
                "stopped_at": found.stopped_at,
            }
        elif reading.comment_lines is not None:  # one command in the body: the rest is text
            fields = {
                "lines": (reading.line,),
                "from_body": True,
                "comment": _comment(list(reading.comment_lines)),
            }
        else:
            fields = {"lines": (reading.line,), "comment": _comment(lines)}
        # Built once, with everything worked out first: the listener reads every mail.
        command, known = ("", None) if lookup is None else _shown(
            lookup, reading.line, fields["lines"], reading.multiple,
            bool(fields.get("from_body")),
        )
        return cls(
            subject=subject, line=reading.line, boards=_boards(fields["lines"]),
            command=command, known=known, **fields,
        )

    @property
    def echoed(self) -> list[str]:
        """The command lines that are run or shown: the others (a long body's rest) appear
        in no reply, and are not looked up."""
        if self.multiple:
            return [*self.lines, *self.unprocessed[:MAX_UNPROCESSED_SHOWN]]
        return [self.line]

    @property
    def free_text(self) -> str:
        """The mail's own words, not its commands: the Subject when it names no command,
        and the comment's lines that name none (what its language is told from, for a
        sender who has chosen none: :mod:`pbm_emergo.views.text_language`)."""
        subject = clean_subject(self.subject)
        words = [x for x in self.comment.splitlines() if x.strip() and not body.names_command(x)]
        if subject.lower() != body.MULTIPLE and not body.names_command(subject):
            words.insert(0, subject)
        return "\n".join(words)

    def redacted(
        self, scrubber: Scrubber, lookup: Lookup | None = None
    ) -> tuple[str, str, Callable[[str], str]]:
        """What is kept of the mail once processed: its Subject and the part of its body
        the server read (command lines, or the comment), every word its command lines hide
        masked (by the function ``scrubber`` makes of them); and that function itself.
        Without ``lookup`` no userid or board is known: more words are masked."""
        lines = self.echoed
        # When the commands are the body's, the Subject (kept in the copy) may hold a
        # secret too.
        hiding = [*lines, clean_subject(self.subject)] if self.from_body else lines
        known = masking.known_in(lookup, hiding)  # one lookup for both
        scrub = scrubber(masking.hidden_words(hiding, known))
        if self.multiple:
            kept = "\n".join(masked(text, known) for text in lines)
        elif self.from_body:  # one command line in the body, and its comment
            comment = scrub(masking.mask_commands(self.comment, known))
            kept = "\n".join(x for x in (masked(self.line, known), comment) if x)
        else:
            kept = scrub(masking.mask_commands(self.comment, known))
        return scrub(self.subject), kept, scrub

    def to_stored(self) -> dict[str, Any]:
        """The reading as stored with the mail on receipt (see :meth:`from_stored`)."""
        return {
            "subject": self.subject,
            "line": self.line,
            "lines": list(self.lines),
            "multiple": self.multiple,
            "from_body": self.from_body,
            "comment": self.comment,
            "unprocessed": list(self.unprocessed),
            "ignored": self.ignored,
            "stopped_at": self.stopped_at,
            "boards": list(self.boards),
            "command": self.command,
            "known": None if self.known is None else self.known.to_stored(),
        }

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> CommandText:
        """What :meth:`to_stored` stored (a reading stored before ``known`` was kept has
        none: the worker looks its words up again)."""
        stopped_at = stored["stopped_at"]
        known = stored.get("known")
        return cls(
            subject=str(stored["subject"]),
            line=str(stored["line"]),
            lines=_strings(stored["lines"]),
            multiple=bool(stored["multiple"]),
            from_body=bool(stored["from_body"]),
            comment=str(stored["comment"]),
            unprocessed=_strings(stored["unprocessed"]),
            ignored=int(stored["ignored"]),
            stopped_at=None if stopped_at is None else str(stopped_at),
            boards=tuple(int(b) for b in stored["boards"]),
            command=str(stored["command"]),
            known=None if known is None else Known.from_stored(known),
        )


def _shown(
    lookup: Lookup, line: str, lines: tuple[str, ...], multiple: bool, from_body: bool
) -> tuple[str, Known | None]:
    """The command as it may be shown: only the words known not to be secret; and, for a
    single command line, what was found known of it (kept for the worker)."""
    if not multiple:
        # The command as it runs: the Subject, or the body's one command line.
        known = lookup([line])
        return masked(line, known), known
    if from_body:
        found = lookup(lines)
        return " | ".join(masked(text, found) for text in lines), None
    return line, None


def _boards(lines: Iterable[str]) -> tuple[int, ...]:
    """The boards that ``lines`` name, in order, each once."""
    boards: list[int] = []
    for line in lines:
        match = _BOARD_ARGUMENT.match(line)
        if match and int(match[1]) not in boards:
            boards.append(int(match[1]))
    return tuple(boards)


def _strings(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in values)

