"""Helpers of the operations tests: scraping /metrics, running the real command line."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from tests.support.waits import scaled

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
        env=env if env is not None else clean_env(), timeout=scaled(timeout), check=False,
    )
