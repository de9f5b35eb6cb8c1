"""The ``pbm-emergo`` command line.

Each group of subcommands lives in its own module with a ``register(subparsers)`` function
that adds its parsers and sets ``func`` (called with the parsed namespace, returning the exit
status). The modules are imported lazily by name so that ``pbm-emergo moves`` never loads the
database or the mail server.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from pbm_emergo import __version__

# Modules that contribute subcommands, in the order they appear in --help.
COMMAND_MODULES = [
    "pbm_emergo.rules_cli",
    "pbm_emergo.server",
    "pbm_emergo.admin_cli",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pbm-emergo",
        description="A play-by-email server for the board game Emergo.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    status: int = func(args)
    return status
