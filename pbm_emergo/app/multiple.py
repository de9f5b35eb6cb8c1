"""The report of a ``multiple`` mail, whose body holds several commands, one per line.

The dispatcher runs the lines (read once, on receipt:
:func:`pbm_emergo.commands.text.command_lines`); this module writes the report of a
``multiple`` mail (:func:`report`) within the size of one reply, so that a short mail
cannot ask for a long one: an answer given for an earlier line is not repeated, at most
:data:`~pbm_emergo.game.words.MAX_UNPROCESSED_SHOWN` lines that were not run are echoed,
and once the report is long an answer that does not fit is cut, or left out, each line's
result still listed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from pbm_emergo.game.words import MAX_UNPROCESSED_SHOWN
from pbm_emergo.views.reply_size import MAX_REPLY_BYTES, cut_to_size, size_of
from pbm_emergo.views.templating import render

# Room kept for the lines that say an answer was left out or cut (each well under this).
_NOTE_ROOM = 200


class LineResult(Protocol):
    """What the report needs of one line's outcome (the dispatcher's LineOutcome)."""

    @property
    def line(self) -> str: ...  # masked
    @property
    def ok(self) -> bool: ...
    @property
    def summary(self) -> str: ...
    @property
    def summary_said(self) -> str | None: ...  # the summary in the reader's language
    @property
    def text(self) -> str | None: ...


@dataclass(frozen=True)
class ReportLine:
    """One line of the Results section, as the template shows it."""

    line: str
    ok: bool
    summary: str
    text: str | None  # the answer, None when there is none or it is not shown
    same_as: int | None = None  # the answer is that of this earlier line (from 1)
    left_out: bool = False  # the answer did not fit in the reply


def report(
    results: Sequence[LineResult],
    unprocessed: Sequence[str],
    mask: Callable[[str], str],
    *,
    limit: int,
    ignored: int,
    stopped_at: str | None,
    failed: int,
    max_bytes: int = MAX_REPLY_BYTES,
) -> str:
    """The report of a ``multiple`` mail (Results, Unprocessed, Ignored), at most
    ``max_bytes``: each answer is shown once, in full while there is room. ``unprocessed``
    are the lines not run, as written; the few shown are shown as ``mask`` makes them."""
    shown_unprocessed = [mask(line) for line in unprocessed[:MAX_UNPROCESSED_SHOWN]]

    def render_report(lines: list[ReportLine]) -> str:
        return render(
            "multiple.txt.j2",
            results=lines,
            unprocessed=shown_unprocessed,
            unprocessed_more=len(unprocessed) - len(shown_unprocessed),
            limit=limit,
            ignored=ignored,
            stopped_at=stopped_at,
            failed=failed,
        )

    # The report without any answer, then the answers in order while they fit.
    bare = [ReportLine(r.line, r.ok, r.summary_said or r.summary, None) for r in results]
    room = max_bytes - size_of(render_report(bare)) - _NOTE_ROOM * len(results)
    first_with: dict[str, ReportLine] = {}  # an answer -> the line that first gave it
    number_of: dict[str, int] = {}  # ... and that line's number (from 1)
    lines: list[ReportLine] = []
    for number, (result, line) in enumerate(zip(results, bare, strict=True), start=1):
        text = result.text
        if not text:
            lines.append(line)
            continue
        first = first_with.get(text)
        if first is not None:
            lines.append(replace(line, same_as=None if first.left_out else number_of[text],
                                 left_out=first.left_out))
            continue
        if _shown_size(text) <= room:
            shown = replace(line, text=text)
        elif room >= 5 * _NOTE_ROOM:
            # Too long for what is left: its start, in half of that (the other half for
            # the answers after it), with a line saying so.
            shown = replace(line, text=_cut(text, room // 2))
        else:
            shown = replace(line, left_out=True)
        if shown.text:
            room -= _shown_size(shown.text)
        first_with[text] = shown
        number_of[text] = number
        lines.append(shown)
    # The estimate above leaves room; the cut below is the guarantee.
    return cut_to_size(render_report(lines), max_bytes)


def _shown_size(text: str) -> int:
    # An answer is shown indented by 4 spaces, between blank lines.
    return size_of(text) + 4 * (text.count("\n") + 1) + 2


def _cut(text: str, room: int) -> str:
    """``text`` cut so that, as shown, it takes at most ``room`` bytes."""
    budget = room
    cut = cut_to_size(text, budget)
    while _shown_size(cut) > room and budget > _NOTE_ROOM:
        budget = budget * 4 // 5  # the indentation made it longer: try a shorter cut
        cut = cut_to_size(text, budget)
    return cut
