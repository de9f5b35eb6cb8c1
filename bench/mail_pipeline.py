"""Mail pipeline throughput: a real `pbm-emergo serve` process, N `help` mails over SMTP
from concurrent clients, replies into the default maildir.

Prints: accept rate (250s per second), accept latency (median, 95th percentile), and the
end-to-end rate (until every reply is in the maildir), plus the server's peak memory.

    .venv/bin/python bench/mail_pipeline.py [--mails 500] [--clients 4] [--workers 1]
        [--database-url postgresql+psycopg://...]
"""

from __future__ import annotations

import argparse
import os
import signal
import smtplib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ADDRESS = "pbmserv@bench.test"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_listening(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the server did not start")


def peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=500)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pbm-emergo-bench-") as tmp:
        data = Path(tmp) / "data"
        port = free_port()
        command = [sys.executable, "-m", "pbm_emergo", "serve", "--data-dir", str(data),
                   "--port", str(port), "--address", ADDRESS, "--workers", str(args.workers),
                   "--log-level", "WARNING"]
        if args.database_url:
            command += ["--database-url", args.database_url, "--migrate"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
        server = subprocess.Popen(command, env=env)
        try:
            wait_listening(port)
            latencies: list[float] = []

            def send(n: int) -> None:
                body = (f"From: player{n}@example.org\r\nTo: {ADDRESS}\r\nSubject: help\r\n"
                        f"Message-ID: <bench-{n}@example.org>\r\n\r\nhello\r\n").encode()
                started = time.perf_counter()
                with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test") as smtp:
                    smtp.sendmail(f"player{n}@example.org", [ADDRESS], body)
                latencies.append(time.perf_counter() - started)

            started = time.perf_counter()
            with ThreadPoolExecutor(args.clients) as pool:
                list(pool.map(send, range(args.mails)))
            accepted_after = time.perf_counter() - started
            maildir = data / "outbox-maildir" / "new"
            while not maildir.is_dir() or len(os.listdir(maildir)) < args.mails:
                time.sleep(0.05)
                if time.perf_counter() - started > 600:
                    raise SystemExit("replies did not all arrive within 10 minutes")
            replied_after = time.perf_counter() - started
            rss = peak_rss_kib(server.pid)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)
    quantiles = statistics.quantiles(latencies, n=20)
    database = "PostgreSQL" if args.database_url else "SQLite"
    print(f"{args.mails} mails, {args.clients} clients, {args.workers} worker(s), {database}")
    median, p95 = statistics.median(latencies) * 1000, quantiles[18] * 1000
    print(f"accepted: {args.mails / accepted_after:.0f} mails/s (one SMTP session each, stored "
          f"before the 250: median {median:.1f} ms, p95 {p95:.1f} ms)")
    print(f"end to end (every reply in the maildir): {replied_after:.1f} s, "
          f"{args.mails / replied_after:.0f} mails/s")
    print(f"server peak RSS: {rss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
