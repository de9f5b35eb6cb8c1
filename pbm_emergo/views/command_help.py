"""A command's long help (its ``details`` in the registry) in the reader's language.

The details are written as paragraphs (split by blank lines) of prose and of example lines
(a line that starts with two spaces: ``  emergo move 101 alice PASSWORD e4xc4#17``). Each run
of prose is one message of the catalogs (the Babel extractor of the help,
:mod:`pbm_emergo.cli.help_messages`, finds them with :func:`prose_runs`); the example lines
stay as written, except the words of a notation table (``  e4xc4xc6   captures: ...``),
whose words after the column are a message too. Wrapped at the help's width, in English
too, a quoted command kept on one line."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pbm_emergo.views import i18n
from pbm_emergo.views.fit import keep_quotes_whole, spaces_again

# As wide as the English help (commands.help.HELP_WIDTH): a mail reader's window.
WIDTH = 72

# A line of a notation table: the notation, two spaces or more, then words about it.
_TABLE_ROW = re.compile(r"^(  \S+ {2,})(\S.*)$")


@dataclass(frozen=True)
class ProseRun:
    """A message of the details: ``text`` (its lines joined by single spaces); for the
    translator, the example line just before it (``after``) or the notation it explains
    (``notation``), if any."""

    text: str
    after: str | None = None
    notation: str | None = None


def _pieces(details: str) -> Iterator[tuple[str, str, str | None]]:
    """The details' pieces in order: ("prose", text, the example before it), ("example",
    line, None), ("row", notation, words), ("break", "", None) between paragraphs."""
    for number, paragraph in enumerate(details.split("\n\n")):
        if number:
            yield "break", "", None
        prose: list[str] = []
        before: str | None = None
        for line in paragraph.splitlines():
            if line.startswith("  "):
                if prose:
                    yield "prose", " ".join(prose), before
                    prose = []
                before = line.strip()
                row = _TABLE_ROW.match(line.rstrip())
                if row:
                    yield "row", row.group(1), row.group(2)
                else:
                    yield "example", line.rstrip(), None
            else:
                prose.append(line.strip())
        if prose:
            yield "prose", " ".join(prose), before


def prose_runs(details: str) -> Iterator[ProseRun]:
    """Every message of ``details``: the runs of prose and the words of notation rows."""
    for kind, text, extra in _pieces(details):
        if kind == "prose":
            yield ProseRun(text, extra)
        elif kind == "row" and extra is not None:
            yield ProseRun(extra, notation=text.strip())


def details_text(details: str, translate: Callable[[str], str] | None = None) -> str:
    """``details`` as mailed in the current language: each message said through the
    catalog (``translate``, default :func:`i18n._`), wrapped at :data:`WIDTH`; example lines
    as written."""
    say = translate or i18n._
    paragraphs: list[list[str]] = [[]]
    for kind, text, extra in _pieces(details):
        if kind == "break":
            paragraphs.append([])
        elif kind == "prose":
            paragraphs[-1].append(_fill(say(text)))
        elif kind == "row" and extra is not None:
            paragraphs[-1].append(
                _fill(say(extra), initial_indent=text, subsequent_indent=" " * len(text))
            )
        else:
            paragraphs[-1].append(text)
    return "\n\n".join("\n".join(lines) for lines in paragraphs)


# French sets a space before ':', ';', '?' and '!': a line must not begin with one of them.
_SPACED_PUNCTUATION = re.compile(r" (?=[:;?!])")
_KEPT = "\u00a0"  # a space textwrap does not break at


def _fill(text: str, initial_indent: str = "", subsequent_indent: str = "") -> str:
    kept = keep_quotes_whole(_SPACED_PUNCTUATION.sub(_KEPT, text))
    filled = textwrap.fill(
        kept,
        WIDTH,
        initial_indent=initial_indent,
        subsequent_indent=subsequent_indent,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return spaces_again(filled).replace(_KEPT, " ")
