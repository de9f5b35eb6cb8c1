"""Text that fits: every line of a text reply within 72 columns.

Mail readers show plain text as it comes, often in a narrow window or read aloud line by
line; a line longer than about 72 characters wraps badly or scrolls. The templates keep
their own lines short; :func:`fit` wraps whatever a value made longer (a long userid, a
board's options, a sentence built by the code), at spaces, each continuation indented
like the line it continues (and under a list item's text). Quoted lines (``>``) and words
longer than a line (an address, a link) are left whole.

It works on text that may still hold the value marks of :mod:`pbm_emergo.views.rendered`
(they take no column), so that a template's output keeps knowing where its values are.
"""

from __future__ import annotations

import re

from pbm_emergo.views.rendered import CLOSE, OPEN

WIDTH = 72

_MARKS = str.maketrans("", "", OPEN + CLOSE)
# The hanging indent of a line: its leading spaces, and a list item's mark after them.
_LEAD = re.compile(r"( *)(?:([-*]|[0-9]{1,3}[.)]) )?")


def width_of(line: str) -> int:
    """The columns a line takes (the value marks take none)."""
    return len(line.translate(_MARKS))


def fit(text: str, width: int = WIDTH) -> str:
    """``text`` with every line longer than ``width`` wrapped at spaces."""
    if all(width_of(line) <= width for line in text.split("\n")):
        return text
    return "\n".join(_fit_line(line, width) for line in text.split("\n"))


def _fit_line(line: str, width: int) -> str:
    visible = line.translate(_MARKS)
    if len(visible) <= width or visible.startswith(">"):
        return line
    lead = _LEAD.match(visible)
    assert lead is not None  # the pattern matches the empty string
    indent = " " * len(lead[0]) if lead[2] else lead[1]
    if len(indent) > width // 2:
        indent = ""
    start = len(line) - len(line.lstrip(" " + OPEN + CLOSE))
    head, words = line[:start], line[start:].split(" ")
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


__all__ = ["WIDTH", "fit", "width_of"]
