"""The languages the server writes its replies and pages in, and how a player names one."""

from __future__ import annotations

import re
from functools import lru_cache

#: The locales, English (the templates' own words) first.
LANGUAGES = ("en", "nl", "de", "fr")
DEFAULT = "en"
#: Each language's name in itself.
NAMES = {"en": "English", "nl": "Nederlands", "de": "Deutsch", "fr": "Français"}

# A language tag's primary subtag: ``de`` of ``de-CH``, ``fr_BE``, ``NL``.
_PRIMARY = re.compile(r"\s*([A-Za-z]{2,3})(?:[-_][A-Za-z0-9-_]*)?\s*")


@lru_cache(maxsize=256)  # every reply asks, with the few tags its readers have
def language_named(tag: str | None) -> str | None:
    """The language of ours that a tag (``nl``, ``de-CH``, ``fr_BE``, any case) or a
    language's own name (``Deutsch``) names, else None."""
    if not tag:
        return None
    for code, name in NAMES.items():
        if tag.strip().casefold() == name.casefold():
            return code
    match = _PRIMARY.fullmatch(tag)
    if match is None:
        return None
    code = match.group(1).lower()
    return code if code in LANGUAGES else None
