"""Text that fits: every line of a text reply within 72 columns.

Mail readers show plain text as it comes, often in a narrow window or read aloud line by
line; a line longer than about 72 characters wraps badly or scrolls. The templates keep
their own lines short; :func:`fit` wraps whatever a value made longer (a long userid, a
board's options, a sentence built by the code), at spaces, each continuation indented
like the line it continues (and under a list item's text). Quoted lines (``>``) and words
longer than a line (an address, a link) are left whole, and so is a quoted command
(``'emergo move 101 alice PASSWORD accept'``) that fits on a line, here and in the
templates' ``wordwrap`` filter (:func:`wordwrap`), so that it can be copied whole.

It works on text that may still hold the value marks of :mod:`pbm_emergo.views.rendered`
(they take no column), so that a template's output keeps knowing where its values are.
"""

from __future__ import annotations

import re
from typing import Any

from jinja2 import Environment, pass_environment
from jinja2.filters import do_wordwrap

from pbm_emergo.views.rendered import CLOSE, OPEN

WIDTH = 72

# The hanging indent of a line: its leading spaces, and a list item's mark after them.
_LEAD = re.compile(r"( *)(?:([-*]|[0-9]{1,3}[.)]) )?")


def width_of(line: str) -> int:
    """The columns a line takes (the value marks take none)."""
    return len(line) - line.count(OPEN) - line.count(CLOSE)


def _visible(line: str) -> str:
    """The line as it reads, without the value marks."""
    return line.replace(OPEN, "").replace(CLOSE, "")


def fit(text: str, width: int = WIDTH) -> str:
    """``text`` with every line longer than ``width`` wrapped at spaces. A line's last
    words carry over into the next line when that line continues the same sentence (a
    template's own hard-wrapped paragraph: same indent, the broken line ends mid-sentence),
    so that a paragraph reflows rather than leaving a word alone on a line."""
    lines = text.split("\n")
    # The marks only ever make a line shorter than it reads: most texts are told apart by
    # their raw lengths alone, without taking the marks out of each line.
    if max(map(len, lines)) <= width or all(width_of(line) <= width for line in lines):
        return text
    out: list[str] = []
    i = 0
    while i < len(lines):
        if width_of(lines[i]) <= width:  # as _fit_line leaves it, nothing carried over
            out.append(lines[i])
            i += 1
            continue
        following = lines[i + 1] if i + 1 < len(lines) else None
        # An item of an indented list that heads a block of its own (a command's usage
        # over its description) continues half-way in, so that its second line is not
        # read as a new item. A paragraph's line at the margin that introduces an
        # indented example ("mail the Subject" over the command) continues at the
        # margin: hung, its last words would read as part of the example.
        indent = len(_indent_of(_visible(lines[i])))
        deeper = (
            indent > 0
            and following is not None
            and following.strip() != ""
            and len(_indent_of(_visible(following))) > indent
        )
        pieces = _fit_line(lines[i], width, 2 if deeper else 0).split("\n")
        if len(pieces) > 1 and following is not None and _continues(lines[i], following):
            last = pieces.pop().lstrip(" ")  # its value marks kept, in order
            lines[i + 1] = _indent_of(following) + last + " " + following.lstrip(" ")
        out.extend(pieces)
        i += 1
    return "\n".join(out)


def refit_shortened(before: str, after: str, width: int = WIDTH) -> str:
    """``after``, which is ``before`` (a fitted text) with some words changed line for line
    (a long word masked as ``********``), fitted again: a line that became shorter, and that
    wrapping had broken (the next line's first word did not fit on it), is filled from the
    lines that continue its sentence, so that no wrapped line is left short ("is not
    allowed: a" over "userid has ..."); a line that became longer is wrapped."""
    lines, old = after.split("\n"), before.split("\n")
    if len(lines) != len(old):
        return fit(after, width)
    shorter = [width_of(a) < width_of(b) for a, b in zip(lines, old, strict=True)]
    # Whether wrapping broke the line: the next line's first word would not have fit on it
    # (a list's items and a template's own short lines were not broken so).
    broken = [
        width_of(line) + 1 + width_of(following.lstrip(" ").split(" ")[0]) > width
        for line, following in zip(old, old[1:], strict=False)
    ] + [False]
    for i in range(len(lines) - 1):
        if i >= len(lines) - 1 or not shorter[i]:
            continue  # (lines taken whole shorten the list as it goes)
        # Each line that gives words up is shorter in turn: fill it from the next.
        j = i
        while j + 1 < len(lines) and broken[j] and _continues(lines[j], lines[j + 1]):
            indent = _indent_of(lines[j + 1])
            words = lines[j + 1][len(indent) :].split(" ")
            moved = 0
            while moved < len(words) and (
                width_of(lines[j]) + 1 + width_of(words[moved]) <= width
            ):
                moved += 1
            if moved == 0:
                break
            lines[j] += " " + " ".join(words[:moved])
            if moved == len(words):  # the next line taken whole: this one ends as it did
                del lines[j + 1], shorter[j + 1]
                broken[j] = broken.pop(j + 1)
            else:
                lines[j + 1] = indent + " ".join(words[moved:])
                j += 1
    return fit("\n".join(lines), width)


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" "))]


def _continues(line: str, following: str) -> bool:
    """Whether ``following`` goes on with the sentence ``line`` leaves unfinished."""
    visible, next_visible = _visible(line), _visible(following)
    if not next_visible.strip() or next_visible.lstrip().startswith(">"):
        return False
    ending = visible.rstrip()
    if ending.endswith((".", ":", "!", "?")) and not ending.endswith(("e.g.", "i.e.")):
        return False
    # A closing bracket ends a line of its own ("... dave (Eks, 1600)" over "Options:
    # ...") unless the next line goes on in lower case ("(from any address)" over "the
    # Subject", as a translation may break it).
    if ending.endswith(")") and not next_visible.lstrip()[:1].islower():
        return False
    lead = _LEAD.match(next_visible)
    if lead is None or lead[2]:
        return False  # the next line is a list item of its own
    return _indent_of(next_visible) == _indent_of(visible)


def _fit_line(line: str, width: int, hang: int = 0) -> str:
    visible = _visible(line)
    if len(visible) <= width or visible.startswith(">"):
        return line
    lead = _LEAD.match(visible)
    assert lead is not None  # the pattern matches the empty string
    indent = " " * len(lead[0]) if lead[2] else lead[1] + " " * hang
    if len(indent) > width // 2:
        indent = ""
    start = len(line) - len(line.lstrip(" " + OPEN + CLOSE))
    head, words = line[:start], line[start:].split(" ")
    if "'" in line:  # most lines quote nothing (a board mail's options)
        words = _quotes_whole(words, width - len(indent))
    lines: list[str] = []
    current, size = head + words[0], len(lead[1]) + width_of(words[0])
    for word in words[1:]:
        size_of_word = width_of(word)
        if size + 1 + size_of_word <= width or size_of_word == 0:
            current, size = current + " " + word, size + 1 + size_of_word
        else:
            lines.append(current.rstrip(" "))
            current, size = indent + word, len(indent) + size_of_word
    lines.append(current)
    return "\n".join(lines)


@pass_environment
def wordwrap(environment: Environment, text: str, *args: Any, **kwargs: Any) -> str:
    """Jinja's ``wordwrap`` (the templates' filter), for a text that may hold marked values
    (a filter block): the marks would count as characters, so the wrapped text is marked as
    one value. A quoted command is kept on one line (:func:`keep_quotes_whole`)."""
    if OPEN not in text and CLOSE not in text:
        return spaces_again(do_wordwrap(environment, keep_quotes_whole(text), *args, **kwargs))
    plain = keep_quotes_whole(text.replace(OPEN, "").replace(CLOSE, ""))
    return OPEN + spaces_again(do_wordwrap(environment, plain, *args, **kwargs)) + CLOSE


# A space inside a quoted command, where no wrapper breaks a line (see keep_quotes_whole).
KEPT_SPACE = "\ue002"  # beside the value marks (rendered.OPEN, CLOSE)


def keep_quotes_whole(text: str, room: int = WIDTH - 16) -> str:
    """``text`` with the spaces inside each quoted command of up to ``room`` columns made
    :data:`KEPT_SPACE`, so that a wrapper that breaks at spaces (``textwrap``, Jinja's
    ``wordwrap``) keeps the command on one line; :func:`spaces_again` undoes it."""
    if "'" not in text:
        return text  # most texts quote nothing (a board mail's deadlines)
    return "\n".join(
        " ".join(_quotes_whole(line.split(" "), room, KEPT_SPACE)) for line in text.split("\n")
    )


def spaces_again(text: str) -> str:
    """``text`` wrapped after :func:`keep_quotes_whole`, its kept spaces spaces again."""
    return text.replace(KEPT_SPACE, " ") if KEPT_SPACE in text else text


def _quotes_whole(words: list[str], room: int, joiner: str = " ") -> list[str]:
    """``words`` with each quoted span ('emergo move 101 carol PASSWORD accept') made one
    word (joined by ``joiner``) where it fits in ``room`` columns: a command broken over
    two lines is hard to copy."""
    out: list[str] = []
    i = 0
    while i < len(words):
        end = _quote_end(words, i)
        if end is not None:
            span = joiner.join(words[i : end + 1])
            if width_of(span) <= room:
                out.append(span)
                i = end + 1
                continue
        out.append(words[i])
        i += 1
    return out


# A quoted command's first word ('emergo, ('help) and its last (PASSWORD', accept'),).
_QUOTE_OPENS = re.compile(r"\(?'[^']")
_QUOTE_CLOSES = re.compile(r"[^']'[.,;:!?)]*$")


def _quote_end(words: list[str], i: int) -> int | None:
    """The index of the word that closes the quote ``words[i]`` opens; None where it opens
    none, closes it itself, or no word within a command's length closes it (the first
    word with a quote mark in it decides: "carol's" closes nothing)."""
    visible = _visible(words[i])
    if not _QUOTE_OPENS.match(visible) or _QUOTE_CLOSES.search(visible):
        return None
    for j in range(i + 1, min(len(words), i + 12)):
        if "'" in _visible(words[j]):
            return j if _QUOTE_CLOSES.search(_visible(words[j])) else None
    return None


__all__ = [
    "KEPT_SPACE",
    "WIDTH",
    "fit",
    "keep_quotes_whole",
    "refit_shortened",
    "spaces_again",
    "width_of",
    "wordwrap",
]
