"""Instructions a warm move mail costs, counted by Valgrind: a figure the machine's load
does not move.

CPU time on a shared machine varies from run to run by more than a change to the move's
path saves (``bench/mail_path.py`` gave 4.3 to 5.9 ms a mail for the same code within
minutes), so comparing two copies of the server by it takes many alternating runs. The
number of instructions the interpreter executes varies by well under a percent: this
script runs ``bench/mail_path.py`` under ``valgrind --tool=cachegrind --cache-sim=no`` (the
instructions of the whole process, at about a twelfth of the speed) four times, with and
without the worker's part (``--skip-worker``) and with ``--moves`` and 2 moves a game, and
takes the runs from one another, so that what is left is the worker's part, and the
listener's, of the warm move mails alone: no start-up, no signups, no challenges, and no
first move of a player (whose password is checked against its argon2id hash).

Instructions are not time: a cache miss or the kernel's work (SQLite's writes of its
journal) costs time and no instruction here. Time is ``bench/mail_path.py``'s figure; this
one says which of two copies does less, and by how much.

    .venv/bin/python bench/instructions.py [--games 4] [--moves 30]

Needs ``valgrind`` (Debian: ``apt-get install valgrind``). To count another copy of the
server, put it first on PYTHONPATH and run from outside the checkout, as for
``bench/mail_path.py``; ``PYTHONHASHSEED`` is fixed for every run, and OpenBLAS (numpy's, which
the language detector loads) runs without threads of its own, whose waiting would be counted.
As the count does not depend on the machine's load, several copies may be counted at once.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

MAIL_PATH = Path(__file__).resolve().parent / "mail_path.py"
# Each player's first move checks the password against its hash: runs of this many moves
# a game hold those and nothing warm, and are taken from the longer ones.
COLD_MOVES = 2


def instructions(games: int, moves: int, skip_worker: bool) -> tuple[int, int]:
    """The instructions of one run of ``bench/mail_path.py`` and its move mails."""
    command = [
        "valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
        sys.executable, str(MAIL_PATH), "--games", str(games), "--moves", str(moves),
    ]
    if skip_worker:
        command.append("--skip-worker")
    # numpy (loaded by the language detector) starts OpenBLAS's threads, which wait for work
    # by spinning for a while: their instructions follow the clock, not the work.
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    mails = re.search(r"(\d+) move mails over", done.stdout)
    if refs is None or mails is None:
        raise SystemExit(f"no count in the output of {' '.join(command)}:\n{done.stderr}")
    return int(refs[1].replace(",", "")), int(mails[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--moves", type=int, default=30)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    if args.moves <= COLD_MOVES:
        raise SystemExit(f"--moves must be more than {COLD_MOVES}")
    whole, mails = instructions(args.games, args.moves, skip_worker=False)
    stored, _ = instructions(args.games, args.moves, skip_worker=True)
    cold_whole, cold_mails = instructions(args.games, COLD_MOVES, skip_worker=False)
    cold_stored, _ = instructions(args.games, COLD_MOVES, skip_worker=True)
    warm = mails - cold_mails
    worker = ((whole - stored) - (cold_whole - cold_stored)) / warm
    listener = (stored - cold_stored) / warm
    import pbm_emergo

    print(f"server: {Path(pbm_emergo.__file__).parent}")
    print(f"{warm} warm move mails over {args.games} games (Valgrind, instructions)")
    print(f"worker (claim ... replies queued): {worker / 1e6:.2f} million a mail")
    print(f"listener (parse, describe, insert): {listener / 1e6:.2f} million a mail")


if __name__ == "__main__":
    main()
