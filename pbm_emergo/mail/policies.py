"""The ``email`` policies the server parses and writes mail with.

They are the standard library's ``policy.default`` (parsing) and ``policy.SMTP`` (writing,
CRLF line ends), with one change through the policy's documented ``header_factory`` hook:
the header registry keeps the header classes it makes. The stock registry builds a new
class with ``type()`` for every header of every message, which was a third of the time it
took to write a board mail; the classes depend only on the header's name, so keeping them
changes nothing else.
"""

from __future__ import annotations

from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from typing import Any


class CachedHeaderRegistry(HeaderRegistry):
    """A :class:`HeaderRegistry` that makes each header class once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._classes: dict[str, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        cls = self._classes.get(key)
        if cls is None:
            cls = self._classes[key] = super().__getitem__(name)
        return cls


# Reading mail: policy.default; writing it: policy.SMTP (CRLF), each with the cached registry.
READ = policy.default.clone(header_factory=CachedHeaderRegistry())
WRITE = policy.SMTP.clone(header_factory=CachedHeaderRegistry())

__all__ = ["READ", "WRITE", "CachedHeaderRegistry"]
