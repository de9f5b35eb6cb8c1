"""The CPU time and memory of starting `pbm-emergo serve` with all its helper processes.

Each run starts ``python -m pbm_emergo serve`` (embedded SQLite, replies to a maildir,
``--http-port`` for the web view: seven processes and the fork server) in a temporary
folder and a session of its own, waits ``--seconds`` (it takes no mail), then reads every
process of that session from ``/proc``: its CPU time so far (the children it reaped
included) and its proportional set size (shared pages split among their sharers, so the
sum is the memory in use), and stops it with SIGTERM. ``--tree`` names other source trees
(a worktree of older code, say) to run alternately with this one, each by ``PYTHONPATH``;
run it from a folder outside the trees (with ``python -m`` the current folder comes before
``PYTHONPATH``)::

    cd /tmp && python /work/main/bench/serve_start.py --runs 4
    cd /tmp && python /work/main/bench/serve_start.py --runs 4 --tree /tmp/pbm-old
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
ADDRESS = "emergo@example.org"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def session_usage(session: int) -> tuple[float, float, int]:
    """(CPU seconds, Pss MiB, processes) of every process in ``session``."""
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = pss = 0.0
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            rollup = (entry / "smaps_rollup").read_text()
        except OSError:  # ended meanwhile, or not ours to read
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[3]) != session:
            continue
        # utime, stime, and those of the children it reaped (a helper started again).
        cpu += sum(int(value) for value in fields[11:15]) / ticks
        pss += sum(int(line.split()[1]) for line in rollup.splitlines()
                   if line.startswith("Pss:")) / 1024
        count += 1
    return cpu, pss, count


def start_once(tree: Path, seconds: float) -> tuple[float, float, int]:
    """Start `serve` from ``tree``, wait, measure, stop; (CPU s, Pss MiB, processes)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PBM_EMERGO_", "PROMETHEUS_"))}
    env["PYTHONPATH"] = str(tree)
    with tempfile.TemporaryDirectory(prefix="pbm-bench-serve-start-") as name:
        folder = Path(name)
        with (folder / "serve.log").open("wb") as log:
            server = subprocess.Popen(
                [sys.executable, "-m", "pbm_emergo", "serve", "--data-dir", str(folder / "data"),
                 "--port", str(free_port()), "--address", ADDRESS,
                 "--outbound", f"maildir:{folder / 'out'}", "--http-port", str(free_port())],
                stdout=log, stderr=subprocess.STDOUT, env=env, cwd=folder,
                start_new_session=True,
            )  # fmt: skip
        try:
            time.sleep(seconds)
            usage = session_usage(server.pid)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)
        text = (folder / "serve.log").read_text(errors="replace")
        if server.returncode != 0 or "processes: " not in text or " ERROR " in text:
            raise SystemExit(f"serve from {tree} did not start and stop cleanly:\n{text[-3000:]}")
        return usage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4, help="starts per tree")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="how long each server runs before it is measured")
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="another source tree to run alternately (repeatable)")
    args = parser.parse_args()
    trees = [HERE, *args.tree]
    results: dict[Path, list[tuple[float, float, int]]] = {tree: [] for tree in trees}
    for run in range(args.runs):
        # Alternate, and reverse every other round: old, new, new, old, ...
        for tree in trees if run % 2 == 0 else reversed(trees):
            cpu, pss, count = start_once(tree, args.seconds)
            results[tree].append((cpu, pss, count))
            print(f"{tree}: CPU {cpu:.2f} s, Pss {pss:.0f} MiB in {count} processes", flush=True)
    for tree, rows in results.items():
        cpus = [row[0] for row in rows]
        psss = [row[1] for row in rows]
        print(f"{tree}: CPU mean {statistics.mean(cpus):.2f} s (least {min(cpus):.2f}, most "
              f"{max(cpus):.2f}); Pss mean {statistics.mean(psss):.0f} MiB; "
              f"{rows[0][2]} processes")


if __name__ == "__main__":
    main()
