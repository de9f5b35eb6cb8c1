"""Which parts of a rendered text are values put into the template, and which its own words.

A reply must not show a word that may be a password (:mod:`pbm_emergo.app.secrets`), but
only where the reply quotes what it was given: a password "error" must not turn the
template's own "Emergo error" into "Emergo ********", which would also tell the reader what
the password is. So every value a template outputs (``{{ ... }}``) is marked while rendering,
and the result, a :class:`Rendered` string, remembers the spans of those values; the
scrubber masks a secret only where it touches one.

Erring towards masking: a value's whole text counts as quoted, a filter block over values
counts as one value, and any change to a :class:`Rendered` string (concatenation, slicing)
gives a plain ``str``, which is scrubbed everywhere.
"""

from __future__ import annotations

import operator
import re
from itertools import repeat
from typing import Any, Self, TypeVar

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

# Marks around each value while a template renders; taken out of every value first, so
# that a value cannot pass itself off as the template's own text.
OPEN, CLOSE = "\ue000", "\ue001"
_UNMARK = str.maketrans({OPEN: "\ufffd", CLOSE: "\ufffd"})

Span = tuple[int, int]


class _Spanned:
    """What :class:`Rendered` and :class:`RenderedMarkup` share: the spans (start, end) of
    the values the template put in (None: not known, all of it counts as a value)."""

    _spans: tuple[Span, ...] | None
    # The marked text it was made of (a template's output): its spans are worked out of it
    # only when asked for (by the secrets' scrubber, when a reply holds a secret's word at
    # all), and when each of its values is one pair of marks (none empty), it is what
    # ``marked`` would make again, so a text put into another template is not marked
    # anew. Whether it is, is found out once, when first needed (``_plain``).
    source: str | None = None
    _plain: bool | None = None

    def __new__(cls, text: str, spans: tuple[Span, ...] | None = None) -> Self:
        made = super().__new__(cls, text)  # type: ignore[call-arg]  # str's or Markup's
        made._spans = spans
        return made

    @property
    def spans(self) -> tuple[Span, ...] | None:
        if self._spans is None and self.source is not None:
            self._spans = unmark(self.source)[1]
        return self._spans

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.spans))


class Rendered(_Spanned, str):
    """A rendered text, with the spans of the values the template put in (see
    :class:`_Spanned`)."""

    def marked(self) -> str:
        """The text with its value spans marked again (to be put into another template)."""
        source = _plain_source_of(self)
        if source is not None:
            return source
        if self.spans is None:
            return OPEN + self + CLOSE
        parts: list[str] = []
        at = 0
        for start, end in self.spans:
            parts += [self[at:start], OPEN, self[start:end], CLOSE]
            at = end
        parts.append(self[at:])
        return "".join(parts)


class RenderedMarkup(_Spanned, Markup):
    """A rendered HTML text, with the spans of its values (see :class:`Rendered`). Markup's
    own operations (``+``, ``join``, ``format``) make new ones of this class without spans:
    those count as values all through."""

    def marked(self) -> Markup:
        source = _plain_source_of(self)
        if source is not None:
            return Markup(source)
        return Markup(Rendered(str(self), self.spans).marked())


_R = TypeVar("_R", Rendered, RenderedMarkup)


class TemplateWords(str):
    """A template's own (translated) sentence with its values already marked inside: output
    as it is, not marked as one value (a ``{% trans %}`` block)."""


class TemplateMarkup(Markup):
    """As :class:`TemplateWords`, in an HTML template."""


def marked_value(value: Any) -> str:
    """``value`` between marks, as :func:`mark_value` outputs it."""
    if isinstance(value, Rendered | RenderedMarkup):
        return str(value.marked())
    return OPEN + str(value).translate(_UNMARK) + CLOSE


def spans_of(text: str | Markup) -> tuple[Span, ...] | None:
    """The value spans of a rendered text, or None for a text of unknown origin."""
    return getattr(text, "spans", None) if isinstance(text, Rendered | RenderedMarkup) else None


@pass_context  # at render time only: Jinja would run a plain one on constants when compiling
def mark_value(_context: Context, value: Any) -> Any:
    """The environments' ``finalize``: a value as output, between marks."""
    if type(value) is str:  # the most common value, and never one of the kinds below
        if OPEN in value or CLOSE in value:
            value = value.translate(_UNMARK)
        return OPEN + value + CLOSE
    if isinstance(value, TemplateWords | TemplateMarkup):
        return str.__str__(value) if isinstance(value, TemplateWords) else Markup(value)
    if isinstance(value, Rendered | RenderedMarkup):
        return value.marked()
    text = str(value).translate(_UNMARK)
    marked = OPEN + text + CLOSE
    return Markup(marked) if isinstance(value, Markup) else marked


_MARKS = re.compile(f"([{OPEN}{CLOSE}])")


def _flat_spans(marked: str) -> tuple[Span, ...] | None:
    """The spans of ``marked`` when each of its values is one pair of marks with none
    inside (how a template's output nearly always is), else None (an empty value has no
    span)."""
    pieces = marked.split(OPEN)
    if CLOSE in pieces[0]:
        return None
    spans: list[Span] = []
    at = len(pieces[0])
    for piece in pieces[1:]:
        value, close, rest = piece.partition(CLOSE)
        if not close or CLOSE in rest:
            return None
        if value:
            spans.append((at, at + len(value)))
        at += len(value) + len(rest)
    return tuple(spans)


def unmark(marked: str) -> tuple[str, tuple[Span, ...]]:
    """The text without its marks, and the spans the marks enclosed (nested marks count
    once; a stray close mark is dropped)."""
    if OPEN not in marked and CLOSE not in marked:
        return marked, ()
    flat = _flat_spans(marked)
    if flat is not None:
        return marked.replace(OPEN, "").replace(CLOSE, ""), flat
    return _unmark_nested(marked)


def _plain_source(marked: str) -> bool:
    """Whether each value of ``marked`` is one pair of marks with no mark inside and
    something between them (then its spans follow from it alone: :func:`_flat_spans`).
    Told by whole-string operations: every piece after an open mark holds a close mark,
    and there are as many of those as pieces (so exactly one in each)."""
    pieces = marked.split(OPEN)
    return (
        CLOSE not in pieces[0]
        and marked.count(CLOSE) == len(pieces) - 1
        and OPEN + CLOSE not in marked
        and all(map(operator.contains, pieces[1:], repeat(CLOSE)))
    )


def _made(cls: type[_R], marked: str) -> _R:
    """A template's output (with marks) as a ``cls`` text: the text without its marks (as
    :func:`unmark` makes it, whether the marks nest or not), its spans read from the marks
    only when asked for."""
    made = cls(marked.replace(OPEN, "").replace(CLOSE, ""))
    made.source = marked
    return made


def _plain_source_of(made: Rendered | RenderedMarkup) -> str | None:
    """``made``'s source if each of its values is one pair of marks there, else None
    (found out once: a cell of the board picture is put into many pictures)."""
    if made.source is None:
        return None
    if made._plain is None:
        made._plain = _plain_source(made.source)
    return made.source if made._plain else None


def _unmark_nested(marked: str) -> tuple[str, tuple[Span, ...]]:
    """:func:`unmark` of a text whose marks nest or stray."""
    parts: list[str] = []
    spans: list[Span] = []
    length = depth = start = 0
    for piece in _MARKS.split(marked):
        if piece == OPEN:
            if depth == 0:
                start = length
            depth += 1
        elif piece == CLOSE:
            if depth > 0:
                depth -= 1
                if depth == 0 and length > start:
                    spans.append((start, length))
        elif piece:
            parts.append(piece)
            length += len(piece)
    if depth > 0 and length > start:
        spans.append((start, length))
    return "".join(parts), tuple(spans)


def rendered(marked: str) -> Rendered:
    """A template's output (with marks) as a :class:`Rendered` text."""
    return _made(Rendered, marked)


def rendered_markup(marked: str) -> RenderedMarkup:
    """An HTML template's output (with marks) as a :class:`RenderedMarkup` text."""
    return _made(RenderedMarkup, marked)
