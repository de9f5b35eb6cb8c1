"""``pbm-emergo check``: whether the configuration works (see :mod:`pbm_emergo.ops.check`);
exit status 0 when every part works, 1 when one does not."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from typing import Any

from pbm_emergo.cli.settings import add_config_options, config_for
from pbm_emergo.config import config_file_path
from pbm_emergo.ops.check import format_finding, run_checks

HELP = ("check the settings: database, mail in, mail out, web URL, data folder; each problem "
        "with its fix")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("check", help=HELP, description=HELP)
    add_config_options(parser)
    parser.add_argument(
        "--wait", type=float, default=0.0, metavar="SECONDS",
        help="while a part fails, check again each second for up to SECONDS (a server that "
             "was just started)",
    )
    parser.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    # The parts log what they try (the outbound transport logs a refused login as an
    # error); the findings say it here, once.
    logging.getLogger().addHandler(logging.NullHandler())
    try:
        config = config_for(args)
    except (OSError, ValueError) as exc:
        print(f"PROBLEM settings     {exc}\n{'':<20} fix: the setting it names", file=sys.stderr)
        return 1
    path = config_file_path(args.config)
    print(f"settings: {path if path is not None else 'no configuration file'}, then the "
          "environment (PBM_EMERGO_*)")
    deadline = time.monotonic() + max(0.0, args.wait)
    while True:
        findings = run_checks(config)
        if not any(f.problem for f in findings) or time.monotonic() >= deadline:
            break
        time.sleep(1.0)
    for finding in findings:
        print(format_finding(finding))
    problems = sum(f.problem for f in findings)
    print(f"{problems} problem{'s' if problems != 1 else ''}" if problems else "all good")
    return 1 if problems else 0
