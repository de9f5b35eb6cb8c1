"""The ``pbm-emergo`` command table: ``moves`` and ``board`` load no server code (no
database, no mail server, no templates, no password hashing), while ``--help`` still lists
every command and each command's own ``--help`` works.

The import checks run in a fresh interpreter (``python -c``): this test process has most of
the package loaded already.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from pbm_emergo.cli import COMMANDS

# Imported by the server, the admin commands or the mail commands, never by the rules CLI.
SERVER_MODULES = [
    "sqlalchemy",
    "alembic",
    "aiosmtpd",
    "jinja2",
    "argon2",
    "pbm_emergo.db",
    "pbm_emergo.mail",
    "pbm_emergo.commands",
    "pbm_emergo.ops.server",
    "pbm_emergo.cli.admin",
    "pbm_emergo.web",
    "starlette",
    "uvicorn",
]
# The commands of `pbm-emergo --help`, in order.
COMMAND_NAMES = ["moves", "board", "rules", "serve", "worker", "deliver", "web", "db", "admin",
                 "check", "robot-match"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with a fixed terminal width (argparse wraps help to it)."""
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, env=env
    )


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return _run("-c", textwrap.dedent(code))


def _loaded_after(argv: list[str]) -> dict[str, Any]:
    """Run ``pbm_emergo.cli.main(argv)`` in a fresh interpreter: its status, its output, and
    which of SERVER_MODULES it loaded."""
    done = _python(
        f"""
        import contextlib, io, json, sys
        from pbm_emergo.cli import main

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                status = main({argv!r})
            except SystemExit as exit:
                status = exit.code
        loaded = [m for m in {SERVER_MODULES!r} if m in sys.modules]
        print(json.dumps({{"status": status, "out": out.getvalue(), "loaded": loaded}}))
        """
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize(
    "argv",
    [
        ["moves"],
        ["moves", "e4", "d6", "c4", "--json"],
        ["moves", "--blocked", "draw", "e4"],
        ["board", "e4", "--white", "Alice", "--black", "bob"],
    ],
)
def test_the_rules_commands_load_no_server_code(argv: list[str]) -> None:
    result = _loaded_after(argv)
    assert result["status"] == 0
    assert result["out"]
    assert result["loaded"] == []


def test_moves_json_from_a_fresh_interpreter_is_the_engine_s_answer() -> None:
    result = _loaded_after(["moves", "e4", "d6", "c4", "--json"])
    shown = json.loads(result["out"])
    assert shown["moves"] == ["e4", "d6", "c4"]
    assert shown["legal_moves"] and shown["outcome"] is None
    assert result["loaded"] == []


def test_help_lists_every_command_without_loading_them() -> None:
    result = _loaded_after(["--help"])
    assert result["status"] == 0
    assert result["loaded"] == []
    listed = [
        line.split()[0]
        for line in result["out"].splitlines()
        if line.startswith("    ") and not line.startswith("     ")
    ]
    assert listed == COMMAND_NAMES
    for command in COMMANDS:
        # argparse wraps long help lines: compare the words.
        assert " ".join(command.help.split()) in " ".join(result["out"].split())


def test_help_through_the_console_entry_point() -> None:
    done = _run("-m", "pbm_emergo", "--help")
    assert done.returncode == 0, done.stderr
    for name in COMMAND_NAMES:
        # argparse puts the help of a long name on the next line.
        assert f"\n    {name} " in done.stdout or f"\n    {name}\n" in done.stdout


def test_no_command_prints_the_help_and_fails() -> None:
    done = _python(
        """
        import contextlib, io, sys
        from pbm_emergo.cli import main

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = main([])
        assert status == 2, status
        assert "serve" in err.getvalue() and "admin" in err.getvalue(), err.getvalue()
        """
    )
    assert done.returncode == 0, done.stderr


def test_an_unknown_command_names_every_command() -> None:
    done = _run("-m", "pbm_emergo", "nonsense")
    assert done.returncode == 2
    assert "invalid choice: 'nonsense'" in done.stderr
    for name in COMMAND_NAMES:
        assert repr(name) in done.stderr


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["moves", "--help"], "--blocked"),
        (["board", "--help"], "--white"),
        (["serve", "--help"], "--max-message-size"),
        (["worker", "--help"], "--workers"),
        (["serve", "--help"], "--http-port"),
        (["web", "--help"], "--port"),
        (["db", "--help"], "upgrade"),
        (["db", "upgrade", "--help"], "--database-url"),
        (["admin", "--help"], "requeue"),
        (["admin", "games", "--help"], "--player"),
    ],
)
def test_each_command_has_its_own_help(argv: list[str], expected: str) -> None:
    done = _run("-m", "pbm_emergo", *argv)
    assert done.returncode == 0, done.stderr
    assert f"usage: pbm-emergo {argv[0]}" in done.stdout
    assert expected in done.stdout


class _Recorder:
    """Stands in for argparse's subparsers: records what a module's register() adds."""

    def __init__(self) -> None:
        self.helps: dict[str, str | None] = {}

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        self.helps[name] = kwargs.get("help")
        return argparse.ArgumentParser(prog=f"pbm-emergo {name}")


@pytest.mark.parametrize("module", sorted({c.module for c in COMMANDS}))
def test_the_table_matches_what_the_modules_register(module: str) -> None:
    recorder = _Recorder()
    importlib.import_module(module).register(recorder)
    assert recorder.helps == {c.name: c.help for c in COMMANDS if c.module == module}


def test_a_module_s_commands_are_listed_together() -> None:
    # build_parser() registers a whole module at the place of its first command.
    modules = [c.module for c in COMMANDS]
    for module in set(modules):
        first = modules.index(module)
        assert modules[first : first + modules.count(module)] == [module] * modules.count(module)


def test_a_process_builds_each_module_s_parser_once_and_it_parses_again_and_again() -> None:
    from pbm_emergo.cli import build_parser

    parser = build_parser(["admin", "show", "101"])
    assert build_parser(["admin", "games"]) is parser  # the same module: built once
    assert build_parser(["rules"]) is not parser
    # Parsing leaves nothing behind for the next command.
    first = parser.parse_args(["admin", "show", "101", "--json"])
    second = parser.parse_args(["admin", "show", "102"])
    assert (first.board, first.json) == (101, True)
    assert (second.board, second.json) == (102, False)
