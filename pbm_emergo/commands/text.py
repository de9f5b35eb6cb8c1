"""A mail's commands, read once: :class:`CommandText`.

The listener reads a mail's Subject and body into a :class:`CommandText` on receipt
(:func:`pbm_emergo.commands.describe`) and stores it with the mail; the row's description
(the command as it may be shown) and the boards a worker keeps in order come from it, and so
do the worker's run of the commands (:func:`pbm_emergo.commands.dispatcher.dispatch`), its
passwords checked ahead and the redacted copy of the mail it keeps
(:func:`pbm_emergo.commands.redact`). Nothing on the way reads the Subject and body again.

A mail carries one command in its Subject (pbmserv style); its body is the comment. A
Subject of ``multiple`` makes every body line a command; a Subject that is no command has
its commands read from the body (see :mod:`pbm_emergo.commands.body`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pbm_emergo.commands import body, masking
from pbm_emergo.commands.multiple import MAX_UNPROCESSED_SHOWN
from pbm_emergo.game.messages import clean_subject
from pbm_emergo.game.secrets import Known, Secrets

# At most this many command lines of one `multiple` mail are run; the rest are reported
# as Unprocessed.
MAX_COMMAND_LINES = 30
# A comment (the body of a move) is cut after this many lines / characters.
MAX_COMMENT_LINES = 40
MAX_COMMENT_CHARS = 4000

# Where quoted or forwarded text starts: "On ... wrote:", Outlook's "-----Original
# Message-----", Gmail's "---------- Forwarded message ---------", Apple Mail's "Begin
# forwarded message:", and Outlook's line of underscores above a From:/Sent: block; each
# also as German, French, Dutch and Spanish mail programs write it ("Am ... schrieb ...:",
# "-----Ursprüngliche Nachricht-----", "Le ... a écrit :"). A forwarded copy of a command
# mail carries its Subject, and so its password. No command line starts with these words.
_ORIGINAL = (
    r"original message|ursprüngliche nachricht|message d'origine|oorspronkelijk bericht"
    r"|mensaje original"
)
_FORWARDED = (
    r"forwarded message|weitergeleitete nachricht|message transféré|doorgestuurd bericht"
    r"|mensaje reenviado"
)
_QUOTE_HEADER = re.compile(
    rf"^(on\s.*wrote:|.*\bwrote:|-+\s*({_ORIGINAL})\s*-+|-+\s*({_FORWARDED})\s*-+"
    r"|begin forwarded message:|_{8,}|am\s.*\bschrieb\b.*:|le\s.*\ba écrit\s?:"
    r"|op\s.*\bschreef\b.*:|el\s.*\bescribió\s?:)\s*$",
    re.IGNORECASE,
)
# The header block of a quoted or forwarded mail (Outlook without its line of underscores):
# a "From:" line followed by a "Sent:", "Date:", "To:" or "Subject:" line, in English,
# German ("Von:", "Gesendet:", "An:", "Betreff:"), French ("De :", "Envoyé :", "À :",
# "Objet :", a space before the colon), Dutch ("Van:", "Verzonden:", "Aan:", "Onderwerp:")
# or Spanish ("De:", "Enviado el:", "Para:", "Asunto:").
_FROM_LINE = re.compile(r"^\*?(from|von|de|van)\s?:\*?\s", re.IGNORECASE)
_HEADER_LINE = re.compile(
    r"^\*?(sent|date|to|cc|subject|gesendet|datum|an|betreff|envoyé|à|objet|verzonden"
    r"|aan|onderwerp|enviado(\s+el)?|fecha|para|asunto)\s?:\*?\s",
    re.IGNORECASE,
)
# The board a command line names: its first argument, after "emergo WORD".
_BOARD_ARGUMENT = re.compile(r"^emergo\s+[a-z]+\s+(\d{1,9})\b", re.IGNORECASE)


@dataclass
class BodyLines:
    """The command lines of a body and what was left out."""

    commands: list[str] = field(default_factory=list)
    unprocessed: list[str] = field(default_factory=list)
    ignored: int = 0
    stopped_at: str | None = None  # why reading stopped, in words


def _stop_reason(line: str, following: str = "") -> str | None:
    stripped = line.strip()
    if _FROM_LINE.match(stripped) and _HEADER_LINE.match(following.strip()):
        return "quoted text"
    if line.rstrip("\r\n") in ("-- ", "--") or stripped == "--":
        return "the signature"
    if stripped.lower() == "end":
        return "the line 'end'"
    if stripped.startswith(">") or _QUOTE_HEADER.match(stripped):
        return "quoted text"
    return None


def body_text_lines(text: str) -> tuple[list[str], str | None, int]:
    """The lines of ``text`` (a body) before a signature, ``end`` or quoted text.

    Returns the lines, why reading stopped (or None) and how many lines were left out.
    """
    lines = text.splitlines()
    for index, line in enumerate(lines):
        reason = _stop_reason(line, lines[index + 1] if index + 1 < len(lines) else "")
        if reason:
            # A signature marker or 'end' is not content; a quoted line is.
            start = index if reason == "quoted text" else index + 1
            left = [x for x in lines[start:] if x.strip()]
            return lines[:index], reason, len(left)
    return lines, None, 0


def command_lines(text: str, limit: int = MAX_COMMAND_LINES) -> BodyLines:
    """Split the body of a ``multiple`` mail into the command lines to run."""
    return _command_lines(*body_text_lines(text), limit=limit)


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


def comment_text(text: str) -> str:
    """The comment of a command mail: the body before any signature or quoted text."""
    return _comment(body_text_lines(text)[0])


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
    when read without one.
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

    @classmethod
    def read(cls, subject: str, text: str, lookup: masking.Lookup | None = None) -> CommandText:
        """The commands of a mail with Subject ``subject`` and body ``text``; ``lookup``
        finds which of their words are existing userids and boards (shown in ``command``)."""
        lines, reason, ignored = body_text_lines(text)
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
                "comment": comment_text("\n".join(reading.comment_lines)),
            }
        else:
            fields = {"lines": (reading.line,), "comment": _comment(lines)}
        # Built once, with everything worked out first: the listener reads every mail.
        command = "" if lookup is None else _shown(
            lookup, reading.line, fields["lines"], reading.multiple,
            bool(fields.get("from_body")),
        )
        return cls(
            subject=subject, line=reading.line, boards=_boards(fields["lines"]),
            command=command, **fields,
        )

    @property
    def echoed(self) -> list[str]:
        """The command lines that are run or shown: the others (a long body's rest) appear
        in no reply, and are not looked up."""
        if self.multiple:
            return [*self.lines, *self.unprocessed[:MAX_UNPROCESSED_SHOWN]]
        return [self.line]

    def redacted(
        self, lookup: masking.Lookup | None = None
    ) -> tuple[str, str, Callable[[str], str]]:
        """What is kept of the mail once processed: its Subject and the part of its body
        the server read (command lines, or the comment), every word its command lines hide
        masked; and the masking function itself. Without ``lookup`` no userid or board is
        known: more words are masked."""
        lines = self.echoed
        # When the commands are the body's, the Subject (kept in the copy) may hold a
        # secret too.
        hiding = [*lines, clean_subject(self.subject)] if self.from_body else lines
        known = masking.known_in(lookup, hiding)  # one lookup for both
        secrets = Secrets(words=masking.hidden_words(hiding, known))
        if self.multiple:
            kept = "\n".join(masked(text, known) for text in lines)
        elif self.from_body:  # one command line in the body, and its comment
            comment = secrets.scrub(masking.mask_commands(self.comment, known))
            kept = "\n".join(x for x in (masked(self.line, known), comment) if x)
        else:
            kept = secrets.scrub(masking.mask_commands(self.comment, known))
        return secrets.scrub(self.subject), kept, secrets.scrub

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
        }

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> CommandText:
        """What :meth:`to_stored` stored."""
        stopped_at = stored["stopped_at"]
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
        )


def _shown(
    lookup: masking.Lookup, line: str, lines: tuple[str, ...], multiple: bool, from_body: bool
) -> str:
    """The command as it may be shown: only the words known not to be secret."""
    if not multiple:
        # The command as it runs: the Subject, or the body's one command line.
        return masked(line, masking.known_in(lookup, [line]))
    if from_body:
        known = masking.known_in(lookup, lines)
        return " | ".join(masked(text, known) for text in lines)
    return line


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

