"""The ``pbm-emergo`` command line.

Each group of subcommands lives in its own module with a ``register(subparsers)`` function
that adds its parsers and sets ``func`` (called with the parsed namespace, returning the exit
status). :data:`COMMANDS` names every subcommand with its one-line help and its module; a
module is imported only when one of its commands is chosen, so ``pbm-emergo moves`` never
loads the database or the mail server (the server and admin modules import SQLAlchemy,
aiosmtpd, ... at module level). The other commands appear in ``--help`` from the table alone.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NamedTuple

from pbm_emergo import __version__

# The umask of every command: what it creates (the SQLite database and its -wal and -shm,
# the outbox maildir, backups, the credential cache's files, the metrics' files) is its
# user's alone, whatever umask it was started with (a shared host's 022 included).
PRIVATE_UMASK = 0o077


class Command(NamedTuple):
    """A subcommand: its name, its help line in ``pbm-emergo --help``, and the module whose
    ``register(subparsers)`` adds it (a module may add several: they are listed together)."""

    name: str
    help: str
    module: str


# Every subcommand, in the order they appear in --help. The help lines are those the
# modules register (tests/test_cli_imports.py checks that they agree).
COMMANDS = (
    Command("moves", "replay moves from the start and list the legal moves",
            "pbm_emergo.cli.rules"),
    Command("board", "print the ASCII board after some moves", "pbm_emergo.cli.rules"),
    Command("rules", "check a game record file and print its final position",
            "pbm_emergo.cli.rules"),
    Command("serve", "run the mail server: SMTP listener, workers, outbox sender, scheduler",
            "pbm_emergo.cli.serve"),
    Command("worker", "run only the inbox workers and the outbox sender (more processes)",
            "pbm_emergo.cli.serve"),
    Command("deliver", "store one mail read from standard input (for an MTA's pipe or a "
            ".forward)", "pbm_emergo.cli.deliver"),
    Command("web", "run the read-only web view of the boards (HTTP)", "pbm_emergo.cli.web"),
    Command("db", "database migrations", "pbm_emergo.cli.admin"),
    Command("admin", "inspect games, players and mail in the database", "pbm_emergo.cli.admin"),
    Command("check", "check the settings: database, mail in, mail out, web URL, data folder; "
            "each problem with its fix", "pbm_emergo.cli.check"),
    Command("robot-match", "play robot levels (or random) against each other and print the score",
            "pbm_emergo.cli.robot"),
)  # fmt: skip


def chosen_command(argv: Sequence[str]) -> Command | None:
    """The command ``argv`` runs, if any: the first word that is not an option (the
    top-level options, ``--help`` and ``--version``, take no value)."""
    for word in argv:
        if not word.startswith("-"):
            return next((c for c in COMMANDS if c.name == word), None)
    return None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for ``argv``: the chosen command's module registers its real parsers;
    every other command is a placeholder carrying its help line (never selected, as the
    chosen one is always loaded)."""
    chosen = chosen_command(argv)
    return _parser(None if chosen is None else chosen.module)


@functools.cache
def _parser(module: str | None) -> argparse.ArgumentParser:
    """The parser with ``module``'s commands registered, made once a process: a process
    that runs several commands (a test calling :func:`main`) would otherwise build the
    admin commands' parsers, about 10 ms of CPU, for each."""
    parser = argparse.ArgumentParser(
        prog="pbm-emergo",
        description="A play-by-email server for the board game Emergo.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        if command.name in subparsers.choices:
            continue  # registered with an earlier command of its module
        if command.module == module:
            importlib.import_module(command.module).register(subparsers)
        else:
            subparsers.add_parser(command.name, help=command.help, description=command.help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    # Whatever the command creates is its user's alone (see PRIVATE_UMASK); the caller's
    # umask is back when it returns (a test calls main() in its own process).
    previous = os.umask(PRIVATE_UMASK)
    try:
        status: int = func(args)
    finally:
        os.umask(previous)
    return status
