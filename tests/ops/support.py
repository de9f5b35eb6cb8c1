"""Helpers of the operations tests: scraping /metrics, running the real command line."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[2]


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of http://127.0.0.1:port/metrics: (name, sorted labels) -> value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without PBM_EMERGO_* and PROMETHEUS_* settings, plus ``extra``."""
    env = {
        k: v for k, v in os.environ.items()
        if not k.startswith(("PBM_EMERGO_", "PROMETHEUS_"))
    }
    env.update(extra)
    return env


def pbm_emergo(*args: str, env: dict[str, str] | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``python -m pbm_emergo ARGS`` and return what it did."""
    return subprocess.run(
        [sys.executable, "-m", "pbm_emergo", *args], capture_output=True, text=True,
        env=env if env is not None else clean_env(), timeout=timeout, check=False,
    )


class OwnPostgres:
    """A PostgreSQL cluster of a test's own (it is restarted under the server), in a
    temporary folder on a free loopback port; as the postgres user when running as root."""

    def __init__(self, folder: Path) -> None:
        import glob
        import shutil
        import socket

        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        which = shutil.which("pg_ctl")
        self.bindir = Path(found[-1]).parent if found else Path(which).parent if which else None
        self.folder = folder
        self.data = folder / "data"
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(folder, user="postgres")
            self.prefix = ["runuser", "-u", "postgres", "--"]

    def pg_ctl(self, *args: str) -> None:
        assert self.bindir is not None
        subprocess.run([*self.prefix, str(self.bindir / "pg_ctl"), "-D", str(self.data), *args],
                       check=True, timeout=120, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    def start(self) -> str:
        assert self.bindir is not None
        subprocess.run([*self.prefix, str(self.bindir / "initdb"), "-D", str(self.data),
                        "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
                       check=True, capture_output=True, timeout=120)
        self.pg_ctl("-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                    "-c fsync=off", "-l", str(self.folder / "server.log"), "-w", "start")
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def restart(self) -> None:
        self.pg_ctl("-m", "fast", "-w", "restart")

    def stop(self) -> None:
        self.pg_ctl("-m", "immediate", "stop")
