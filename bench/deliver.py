"""The CPU time of one `pbm-emergo deliver` process: what an MTA's pipe costs a mail.

A delivery is a process of its own for each mail, so its cost is mostly what the process
loads before it stores the mail. Each run pipes a fresh help mail into ``python -m
pbm_emergo deliver`` against a migrated SQLite database in a temporary folder and reads
the child's user + system time. ``--tree`` names other source trees (a worktree of older
code, say) to run alternately with this one, each by ``PYTHONPATH``::

    python bench/deliver.py --runs 10
    python bench/deliver.py --runs 10 --tree /tmp/pbm-old
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
ADDRESS = "emergo@example.org"


def deliver_cpu(tree: Path, folder: Path, url: str, number: int) -> float:
    """Seconds of CPU of one delivery of a new mail, the package taken from ``tree``."""
    mail = (
        f"From: alice@example.org\r\nTo: {ADDRESS}\r\nSubject: help\r\n"
        f"Message-ID: <bench-deliver-{number}@example.org>\r\n\r\nhelp\r\n"
    ).encode()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
    env["PYTHONPATH"] = str(tree)
    before = os.times()
    subprocess.run(
        [sys.executable, "-m", "pbm_emergo", "deliver", "--sender=alice@example.org",
         f"--recipient={ADDRESS}", "--data-dir", str(folder / "data"), "--database-url", url,
         "--address", ADDRESS],
        input=mail, check=True, capture_output=True, env=env, cwd=folder,
    )  # fmt: skip
    after = os.times()
    return (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="deliveries per tree")
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="another source tree to run alternately (repeatable)")
    args = parser.parse_args()
    trees = [HERE, *args.tree]
    with tempfile.TemporaryDirectory(prefix="pbm-bench-deliver-") as name:
        folder = Path(name)
        url = f"sqlite:///{folder / 'db.sqlite3'}"
        subprocess.run([sys.executable, "-m", "pbm_emergo", "db", "upgrade", "--database-url",
                        url], check=True, capture_output=True, cwd=folder)
        times: dict[Path, list[float]] = {tree: [] for tree in trees}
        number = 0
        for run in range(args.runs):
            # Alternating, the order turned round every other run.
            for tree in trees if run % 2 == 0 else reversed(trees):
                number += 1
                times[tree].append(deliver_cpu(tree, folder, url, number))
    for tree, seconds in times.items():
        ms = [s * 1000 for s in seconds]
        print(f"{tree}: CPU a delivery mean {statistics.mean(ms):.0f} ms, median "
              f"{statistics.median(ms):.0f} ms, least {min(ms):.0f} ms ({len(ms)} runs)")


if __name__ == "__main__":
    main()
