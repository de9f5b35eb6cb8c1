"""Server configuration: defaults, then a TOML file, then the environment, then flags.

Every setting is readable from the environment as ``PBM_EMERGO_<NAME>``; a TOML file (given
with ``--config`` or ``PBM_EMERGO_CONFIG``) holds the same names in lower case, for example
``smtp_port = 2525``.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_PREFIX = "PBM_EMERGO_"


@dataclass(frozen=True)
class Config:
    """Everything the server reads from its environment."""

    data_dir: Path = Path("pbm-emergo-data")
    # None means the embedded default: a SQLite file in data_dir.
    database_url: str | None = None
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 2525
    address: str = "pbmserv@localhost"
    # "smtp://host:port" for a relay, or "maildir:PATH"; None means a maildir in data_dir.
    outbound: str | None = None
    reply_limit: int = 100  # replies to one address per hour
    max_message_size: int = 256 * 1024
    # Days a mail is kept as received (a dead letter) or as its redacted copy (a processed
    # mail) before its raw text is removed; its row (who, when, the masked command) stays.
    raw_retention_days: int = 30
    # Inbox worker processes (``serve``/``worker``); 0 means one for each CPU.
    workers: int = 0
    # The authserv-id of our own MTA's Authentication-Results headers (RFC 8601), for
    # example "mx.example.org": a mail whose From domain fails DMARC (else SPF) by that
    # header is not trusted for what relies on its address alone. None: not checked.
    authserv_id: str | None = None
    # The web view (``pbm-emergo web``, ``serve --http-port``): where it listens (port 0:
    # ``serve`` starts none) and its public base URL, which board mails link to if set.
    http_host: str = "127.0.0.1"
    http_port: int = 0
    web_url: str | None = None
    # Vacation days each player may take in a calendar year (``vacation userid pw DAYS``).
    vacation_days: int = 30
    # Prometheus metrics (``serve``/``worker --metrics-port``): where ``/metrics`` is served
    # (port 0: not served). The log format: "text" (details as key=value) or "json".
    metrics_host: str = "127.0.0.1"
    metrics_port: int = 0
    log_format: str = "text"

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'pbm-emergo.sqlite3').resolve()}"

    @property
    def is_embedded_database(self) -> bool:
        return self.effective_database_url.startswith("sqlite")

    @property
    def effective_outbound(self) -> str:
        if self.outbound:
            return self.outbound
        return f"maildir:{(self.data_dir / 'outbox-maildir').resolve()}"

    @property
    def worker_count(self) -> int:
        return self.workers if self.workers > 0 else max(1, os.cpu_count() or 1)

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2] or "localhost"


_FIELDS = {f.name: f for f in dataclasses.fields(Config) }


def _coerce(name: str, value: Any) -> Any:
    kind = _FIELDS[name].type
    if value is None:
        return None
    if kind in ("int", int):
        return int(value)
    if kind in ("Path", Path):
        return Path(value)
    return str(value)


def load_config(
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    config_file: str | Path | None = None,
) -> Config:
    """Build the configuration: defaults < TOML file < environment < explicit overrides.

    ``overrides`` holds values given on the command line; ``None`` values are ignored.
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    path = config_file or env.get(ENV_PREFIX + "CONFIG")
    if path:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        for key, value in data.items():
            if key not in _FIELDS:
                raise ValueError(f"{path}: unknown setting {key!r}")
            values[key] = _coerce(key, value)
    for name in _FIELDS:
        raw = env.get(ENV_PREFIX + name.upper())
        if raw not in (None, ""):
            values[name] = _coerce(name, raw)
    for name, value in (overrides or {}).items():
        if value is not None:
            values[name] = _coerce(name, value)
    return Config(**values)
