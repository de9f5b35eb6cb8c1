"""The language of a reply: gettext catalogs (Babel) and the locale a reply is written in.

The catalogs are ``pbm_emergo/locale/<lang>/LC_MESSAGES/messages.po``, compiled to the
``.mo`` files beside them (committed, so that an editable install and a wheel both carry
them; ``pybabel compile`` after every change: docs/development.md). English is the
templates' own text: its catalog translates nothing.

The reply being rendered is written in the locale of :func:`current`, which the code that
knows the recipient sets with :func:`speaking` (the sender of a mail, each player a board
mail goes to); the templates' ``{% trans %}`` blocks and the ``_()`` of the Python side read
it at render time. Command words are never translated: a Dutch reply still quotes
``emergo move ...``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from babel.dates import format_date, format_time
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

from pbm_emergo.game.clock import DEFAULT_TIMEZONE, local_time, timezone_named
from pbm_emergo.game.languages import DEFAULT, LANGUAGES, NAMES, language_named

__all__ = [
    "DEFAULT",
    "LANGUAGES",
    "NAMES",
    "current",
    "decided",
    "moment",
    "number",
    "pgettext",
    "speaking",
    "supported",
]

DOMAIN = "messages"


@dataclass(frozen=True)
class Undecided:
    """The language of a mail's replies before anything needed it: ``chosen`` looks up the
    language the sender's player chose (a query, made only if a reply is rendered before
    the mail's login tells: :func:`settle`), ``written`` is the mail's Content-Language,
    ``told`` tells the language of the mail's own words (called only when neither decides
    and no login did: the detector is never run for a mail that logs in)."""

    chosen: Callable[[], str | None]
    written: str | None = None
    told: Callable[[], str | None] | None = None


_current: ContextVar[str | Undecided] = ContextVar("reply_locale", default=DEFAULT)


def locale_dir() -> Path:
    """The folder of the catalogs (inside the package, in a wheel as in a checkout)."""
    return Path(__file__).resolve().parents[1] / "locale"


def supported(tag: str | None) -> str | None:
    """The locale of ours that a language tag (``nl``, ``de-CH``, ``fr_BE``) names."""
    return language_named(tag)


def current() -> str:
    """The locale the reply now rendered is written in."""
    value = _current.get()
    if isinstance(value, Undecided):
        value = (
            supported(value.chosen())
            or supported(value.written)
            or (supported(value.told()) if value.told is not None else None)
            or DEFAULT
        )
        _current.set(value)
    return value


def decided() -> str | None:
    """The locale of the replies, if something decided it already (None: not yet)."""
    value = _current.get()
    return None if isinstance(value, Undecided) else value


def settle(chosen: str | None) -> None:
    """The mail logged in as a player who chose ``chosen`` (None: none): the replies are in
    it (else in the mail's Content-Language, else English), unless their language is
    decided already. The mail's text is not read for it: a player's first mail (the signup)
    was, and a move never waits on the detector."""
    value = _current.get()
    if isinstance(value, Undecided):
        _current.set(supported(chosen) or supported(value.written) or DEFAULT)


@contextmanager
def speaking(locale: str | Undecided | None) -> Iterator[None]:
    """Render what is rendered inside in ``locale`` (None or unknown: English; undecided:
    as :func:`current` and :func:`settle` decide)."""
    token = _current.set(locale if isinstance(locale, Undecided) else supported(locale) or DEFAULT)
    try:
        yield
    finally:
        _current.reset(token)


@cache
def translations(locale: str) -> NullTranslations:
    """The compiled catalog of ``locale`` (English: none, the text as written)."""
    if locale == DEFAULT:
        return NullTranslations()
    return Translations.load(str(locale_dir()), [locale], DOMAIN)


def _(message: str, **values: Any) -> str:
    """``message`` in the current locale, its ``%(name)s`` placeholders filled in."""
    text = translations(current()).gettext(message)
    return text % values if values else text


def in_english(say: Callable[[], str]) -> str:
    """What ``say`` says (messages of the catalogs) in English: the operator's logs."""
    with speaking(DEFAULT):
        return say()


def ngettext(singular: str, plural: str, count: int, **values: Any) -> str:
    """The singular or plural of a message in the current locale; ``%(num)s`` is ``count``."""
    text = translations(current()).ngettext(singular, plural, count)
    return text % {"num": count, **values}


def moment(when: datetime, timezone: str) -> str:
    """``when`` as the reader of the current locale in ``timezone`` reads it: in English
    ``2026-12-01 14:00 CET (Europe/Amsterdam)`` (:func:`~pbm_emergo.game.clock.local_time`),
    in the others the locale's long date and 24-hour time (``1. Dezember 2026 14:00 CET
    (Europe/Amsterdam)``), with the zone's abbreviation and name as in English."""
    locale = current()
    if locale == DEFAULT:
        return local_time(when, timezone)
    name = timezone_named(timezone) or DEFAULT_TIMEZONE
    local = when.astimezone(ZoneInfo(name))
    abbreviation = local.tzname() or name
    shown = (
        f"{format_date(local, 'long', locale=locale)} "
        f"{format_time(local, 'HH:mm', locale=locale)} {abbreviation}"
    )
    return shown if name in ("UTC", abbreviation) else f"{shown} ({name})"


def number(value: float) -> str:
    """A number as the current locale writes it (English: as Python does, ``1600``)."""
    locale = current()
    if locale == DEFAULT:
        return str(value)
    return format_decimal(value, locale=locale, group_separator=False)


def decimal(value: float, places: int = 2, *, signed: bool = False) -> str:
    """A value with ``places`` decimals as the current locale writes it, ``signed`` with
    its sign even when positive (English: as Python does, ``+1.35``; German ``+1,35``)."""
    locale = current()
    if locale == DEFAULT:
        return f"{value:{'+' if signed else ''}.{places}f}"
    digits = "0" + ("." + "0" * places if places else "")
    pattern = f"+{digits};-{digits}" if signed else digits
    return format_decimal(value, format=pattern, locale=locale)


def count(value: int) -> str:
    """A large whole number grouped in thousands as the current locale does (English
    ``12,345``, German ``12.345``)."""
    locale = current()
    if locale == DEFAULT:
        return f"{value:,}"
    return format_decimal(value, format="#,##0", locale=locale)


def pgettext(context: str, message: str, **values: Any) -> str:
    """``message`` in the current locale, as meant in ``context`` (a word that reads
    differently elsewhere: an event's status), its placeholders filled in."""
    text = str(translations(current()).pgettext(context, message))
    return text % values if values else text


def day(when: datetime) -> str:
    """A date as the current locale writes it in a table's column (English: as ever,
    ``2026-12-01``; German ``01.12.26``, Dutch ``01-12-2026``)."""
    locale = current()
    if locale == DEFAULT:
        return when.strftime("%Y-%m-%d")
    return format_date(when, "short", locale=locale)
