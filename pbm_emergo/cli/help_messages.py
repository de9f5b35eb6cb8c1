"""The Babel extractor of the commands' help: each registered command's ``description``
and the prose of its ``details`` are messages of the catalogs (babel.cfg names this
extractor for ``pbm_emergo/commands/registry.py``), so that the command layer stays free of
gettext and ``help`` and ``help COMMAND`` still come in the reader's language
(``help.txt.j2`` translates each line, :mod:`pbm_emergo.views.command_help` the details).
The usages, the command words and the details' example lines are never translated."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import IO, Any

from pbm_emergo.commands.registry import all_commands
from pbm_emergo.views.command_help import prose_runs


def extract(
    fileobj: IO[bytes],
    keywords: Mapping[str, Any],
    comment_tags: list[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """Babel's extractor interface: (line, function, message, comments) for each command's
    description, then for each run of prose of its details, in help order (the file itself
    is not read: the registry is imported)."""
    for command in all_commands():
        yield 1, None, command.description, [f"help: {command.name}"]
        for run in prose_runs(command.details):
            comments = [f"help {command.name}: a paragraph of the command's long help"]
            if run.after is not None:
                comments.append(f"It follows the example line: {run.after}")
            if run.notation is not None:
                comments.append(f"It explains the notation: {run.notation}")
            yield 1, None, run.text, comments
