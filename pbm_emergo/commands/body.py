"""Commands in the body: when the Subject is not a command (a reply to a board mail,
``Re: Emergo Board 101 bob``), the body's lines up to a signature or quoted text are read as
commands, as GNU Mailman reads a request mail.

- A body with exactly one command line runs that line as if it were the Subject; the body's
  other lines are its comment (the text of a chat or a message, a move's comment).
- A body with several command lines is run as a ``multiple`` mail: every line, in order,
  with one report (Results, Unprocessed, Ignored).
- A body with no command line leaves the Subject to be run (and answered) as before.

A Subject counts as a command when its first words name one and the number of its
arguments fits, so that a reply to a chat (``Re: Emergo chat 101 alice``) is read from its
body. :func:`read` decides once; the dispatcher, the listener's description of the mail
and its redacted copy all follow it, so body command lines are masked wherever they are
echoed, logged or stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbm_emergo.commands import registry

MULTIPLE = "multiple"


@dataclass(frozen=True)
class Reading:
    """How a mail's commands are read.

    ``line``: the command line to run (the Subject, or the body's one command line);
    ``multiple``: the body's lines are run one by one (a Subject ``multiple``, or a body of
    several command lines); ``from_body``: the command(s) came from the body;
    ``comment_lines``: with one command line in the body, the body's other lines (its
    comment); None when the comment is the body as usual.
    """

    line: str
    multiple: bool = False
    from_body: bool = False
    comment_lines: tuple[str, ...] | None = None


def names_command(line: str) -> bool:
    """Whether ``line`` starts with a command's words."""
    command, _ = registry.lookup(line.split())
    return command is not None


def is_command(line: str) -> bool:
    """Whether ``line`` is a command whose number of arguments fits."""
    words = line.split()
    command, used = registry.lookup(words)
    return command is not None and command.arity_fits(len(words) - used)


def read(subject_line: str, body_lines: list[str]) -> Reading:
    """How to read a mail whose cleaned Subject is ``subject_line`` and whose body, up to a
    signature or quoted text, is ``body_lines``."""
    if subject_line.lower() == MULTIPLE:
        return Reading(subject_line, multiple=True)
    if is_command(subject_line):
        return Reading(subject_line)
    found = [i for i, text in enumerate(body_lines) if names_command(text)]
    if not found:
        return Reading(subject_line)
    if len(found) > 1:
        return Reading(MULTIPLE, multiple=True, from_body=True)
    at = found[0]
    return Reading(
        " ".join(body_lines[at].split()),
        from_body=True,
        comment_lines=tuple(body_lines[:at] + body_lines[at + 1 :]),
    )
