"""The listener's CPU per mail: ours against a bare aiosmtpd listener, nothing else running.

Each listener runs alone in a process of its own (ours: :class:`InboxHandler` on a fresh
SQLite database, no workers, on its default event loop; bare: a handler that only answers
250, on asyncio's loop, or with ``--only bare-uvloop`` on uvloop's); the same client (8
threads, one SMTP session per move mail) sends ``--mails`` mails to each, one after the
other. Printed: mails per second, and the listener process's CPU (user + system, from
/proc) per mail. ``bench/pipeline.py`` measures the whole server; this isolates what
accepting a mail costs, which bounds the accept rate when the CPU is busy.

Usage:
    .venv/bin/python bench/listener.py                      # 3000 mails, bare then ours
    .venv/bin/python bench/listener.py --mails 3000 --runs 2
    .venv/bin/python bench/listener.py --only bare-uvloop   # the bare one on uvloop's loop

To measure another copy of the server, put it first on PYTHONPATH and run from outside the
checkout (for example ``cd /tmp && PYTHONPATH=/path/to/copy python /path/to/listener.py``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import smtplib
import socket
import tempfile
import threading
import time
from email.message import EmailMessage
from pathlib import Path
from typing import Any

SERVER = "pbmserv@emergo.test"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve(kind: str, port: int, ready: Any, done: Any) -> None:
    """Run one listener until ``done`` is set."""
    controller: Any
    data: Path | None = None
    if kind.startswith("bare"):
        import asyncio

        from aiosmtpd.controller import Controller

        class Bare:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
                return "250 OK"

        if kind == "bare-uvloop":
            import uvloop

            loop = uvloop.new_event_loop()
        else:
            loop = asyncio.new_event_loop()
        controller = Controller(Bare(), hostname="127.0.0.1", port=port, loop=loop)
    else:
        from pbm_emergo.config import Config
        from pbm_emergo.db.session import get_sessionmaker, upgrade_to_head
        from pbm_emergo.mail.inbound import InboxHandler, Listener

        data = Path(tempfile.mkdtemp(prefix="pbm-emergo-listener-"))
        config = Config(data_dir=data, address=SERVER,
                        smtp_host="127.0.0.1", smtp_port=port)
        upgrade_to_head(config)
        controller = Listener(InboxHandler(get_sessionmaker(config), config), config)
    controller.start()
    ready.set()
    done.wait()
    controller.stop()
    if data is not None:
        shutil.rmtree(data, ignore_errors=True)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def send(port: int, mails: int, clients: int) -> float:
    """Send ``mails`` move mails from ``clients`` threads; returns the seconds taken."""

    def client(first: int) -> None:
        for n in range(first, mails, clients):
            player = f"p{n % 80}"
            msg = EmailMessage()
            msg["From"] = f"{player}@players.test"
            msg["To"] = SERVER
            msg["Subject"] = f"emergo move {101 + n % 40} {player} secretpw e4xc4#{n // 40 + 1}"
            msg["Message-ID"] = f"<{n}.{time.time()}@players.test>"
            msg.set_content("\n")
            raw = msg.as_bytes()
            with smtplib.SMTP("127.0.0.1", port) as smtp:
                smtp.sendmail(msg["From"], [SERVER], raw)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started


def measure(kind: str, mails: int, clients: int) -> str:
    context = multiprocessing.get_context("spawn")
    port = free_port()
    ready, done = context.Event(), context.Event()
    process = context.Process(target=serve, args=(kind, port, ready, done))
    process.start()
    try:
        if not ready.wait(60):
            raise SystemExit(f"{kind}: the listener did not start")
        send(port, 200, clients)  # warm up: lazy imports, caches
        before = cpu_seconds(process.pid)
        seconds = send(port, mails, clients)
        cpu = cpu_seconds(process.pid) - before
    finally:
        done.set()
        process.join(60)
    return (f"{kind}: {mails} mails in {seconds:.2f} s = {mails / seconds:.0f} mails/s; "
            f"listener CPU {1000 * cpu / mails:.2f} ms a mail")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", choices=("bare", "bare-uvloop", "ours"))
    args = parser.parse_args()
    kinds = [args.only] if args.only else ["bare", "ours"]
    for _ in range(args.runs):
        for kind in kinds:
            print(measure(kind, args.mails, args.clients), flush=True)


if __name__ == "__main__":
    main()
