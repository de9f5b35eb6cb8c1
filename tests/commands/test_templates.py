"""Every reply template renders with the variables its command passes (StrictUndefined)."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import StrictUndefined, UndefinedError

from pbm_emergo.render import environment, render, template_dir, template_names

COMMANDS = [
    {"usage": "help [topic]", "description": "the summary", "section": "account"},
    {"usage": "emergo help", "description": "the rules", "section": "emergo"},
]
ERROR = {"reason": "It went wrong.", "command": "frob ********", "board": None,
         "board_text": None, "folded": False}

# One sample context per template; a new template without a sample fails the test below.
SAMPLES: dict[str, dict[str, Any]] = {
    "help.txt.j2": {"address": "pbm@example.org", "commands": COMMANDS, "unknown_topic": None},
    "help_command.txt.j2": {"usage": "help [topic]", "description": "d", "details": "more"},
    "emergo_help.txt.j2": {"address": "pbm@example.org", "board": "BOARD", "commands": COMMANDS},
    "multiple.txt.j2": {
        "results": [
            {"line": "help", "ok": True, "summary": "sent", "text": "TEXT"},
            {"line": "frob", "ok": False, "summary": "no such command", "text": None},
        ],
        "unprocessed": ["help"], "limit": 30, "ignored": 2, "stopped_at": "the signature",
        "failed": 1,
    },
    "error/error.txt.j2": ERROR,
    "error/usage.txt.j2": {**ERROR, "usage": "signup userid password"},
    "error/unknown_command.txt.j2": {**ERROR, "commands": COMMANDS},
}


def test_the_environment_is_strict_and_keeps_newlines() -> None:
    env = environment()
    assert env.undefined is StrictUndefined
    assert env.keep_trailing_newline and env.trim_blocks and env.lstrip_blocks
    assert (template_dir() / "help.txt.j2").is_file()


def test_every_template_has_a_sample() -> None:
    assert sorted(SAMPLES) == template_names()


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_template_renders(name: str) -> None:
    text = render(name, **SAMPLES[name])
    assert text.endswith("\n")
    assert "{{" not in text and "{%" not in text


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_template_refuses_a_missing_variable(name: str) -> None:
    sample = dict(SAMPLES[name])
    sample.pop(next(iter(sample)))
    with pytest.raises(UndefinedError):
        render(name, **sample)
