"""``help COMMAND`` in Dutch, German and French: every command's long help (its details)
said through the catalogs, the example lines and the command words as written, every line
within 72 columns; in English the details as written, wrapped the same way. Through
process(), the language from the mail's Content-Language."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.cli.help_messages import extract
from pbm_emergo.commands.base import Command
from pbm_emergo.commands.registry import all_commands
from pbm_emergo.config import Config
from pbm_emergo.mail.commands import dispatch
from pbm_emergo.views.command_help import details_text, prose_runs
from tests.support.text import flat

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
COMMANDS = all_commands()
OTHER_LANGUAGES = ["nl", "de", "fr"]


def help_for(command: type[Command], language: str) -> str:
    mail = CommandMail(
        sender="carol@example.org",
        subject=f"help {command.name}",
        body="",
        message_id="<t@example.org>",
        content_language=language,
    )
    replies: list[Reply]
    replies, writes = dispatch(None, mail, Config(), NOW)  # type: ignore[arg-type]
    assert writes == []
    [reply] = replies
    assert reply.subject == f"Emergo help: {command.name}"  # Subjects stay English
    return reply.body


def example_lines(details: str) -> list[str]:
    """The details' lines that start with two spaces (examples, notation), as written; of
    a notation row only its notation."""
    return [line.split("   ")[0].rstrip() for line in details.splitlines() if line[:2] == "  "]


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_every_command_s_help_is_translated_and_fits(command: type[Command], language: str) -> None:
    said = help_for(command, language)
    english = help_for(command, "en")
    lines = said.splitlines()
    assert max(len(line) for line in lines) <= 72, [x for x in lines if len(x) > 72]
    assert said != english
    # The usage as written; no paragraph of the English details is left.
    assert said.startswith(english.splitlines()[0] + "\n")
    for run in prose_runs(command.details):
        assert flat(run.text) not in flat(said), run.text
    for example in example_lines(command.details):
        assert f"\n{example}" in said
    # The description comes translated too (the details may be only the description).
    assert flat(command.description) not in flat(said)
    assert "'help' lists every command" not in flat(said)


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_the_english_help_of_every_command_is_its_details_wrapped(
    command: type[Command],
) -> None:
    said = help_for(command, "en")
    details = command.details or command.description
    assert f"\n\n{details_text(details, translate=lambda text: text)}\n\n" in said
    assert flat(details) in flat(said)
    assert max(len(line) for line in said.splitlines()) <= 72
    # A quoted command ('emergo show 101#12') is never broken over two lines.
    for line in said.splitlines():
        opened = re.findall(r"(?:^|[\s(])'(?=[a-z])", line)
        assert len(opened) <= line.count("'") - len(opened), line


def test_the_details_of_a_move_keep_their_notation_and_example_lines_in_german() -> None:
    [move] = [c for c in COMMANDS if c.name == "emergo move"]
    said = help_for(move, "de")
    assert "Spielt MOVE auf dem Brett für USERID. Notation:\n" in said
    assert "\n  e4         setzt einen Stein (oder den Schattenstein) auf e4 ein\n" in said
    assert "\n  e4xc4xc6   schlägt: das Startfeld, dann jedes Landefeld\n" in said
    assert "\n  emergo move 101 alice PASSWORD e4xc4#17\n" in said


def test_a_french_line_never_begins_with_the_spaced_punctuation() -> None:
    for command in COMMANDS:
        for line in help_for(command, "fr").splitlines():
            assert line[:1] not in {":", ";", "?", "!"}, (command.name, line)


def test_the_extractor_gives_each_description_and_each_run_of_prose() -> None:
    messages = [message for _, _, message, _ in extract(None, {}, [], {})]  # type: ignore[arg-type]
    for command in COMMANDS:
        assert command.description in messages
        for run in prose_runs(command.details):
            assert run.text in messages
    # Example lines are never messages.
    assert not any(message.startswith("emergo move 101") for message in messages)
    assert "moves a piece" in messages  # the words of a notation row
    assert not any(message.startswith("e4-e5") for message in messages)
