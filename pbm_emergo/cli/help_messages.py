"""The Babel extractor of the commands' help lines: each registered command's
``description`` is a message of the catalogs (babel.cfg names this extractor for
``pbm_emergo/commands/registry.py``), so that the command layer stays free of gettext and
the ``help`` summary still comes in the reader's language (``help.txt.j2`` translates each
line). The usages and the command words are never translated."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import IO, Any

from pbm_emergo.commands.registry import all_commands


def extract(
    fileobj: IO[bytes],
    keywords: Mapping[str, Any],
    comment_tags: list[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """Babel's extractor interface: (line, function, message, comments) for each command's
    description, in help order (the file itself is not read: the registry is imported)."""
    for command in all_commands():
        yield 1, None, command.description, [f"help: {command.name}"]
