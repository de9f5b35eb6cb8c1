"""``pbm-emergo admin stats`` and ``pbm-emergo admin backup``.

``stats`` prints the figures of the metrics once, for a terminal (``--json`` for scripts):
what the database says (queues, dead letters, boards, every mail by status, the last hour's
time from receipt to done), and with ``--metrics-url`` also the counters of a running
server (SMTP answers by code, mails by command and result, replies sent, retried, failed),
which live only in its processes.

``backup PATH`` copies a live SQLite database with SQLite's online backup API while the
server runs: the copy is one consistent snapshot (WAL: the server's writers go on meanwhile),
checked (``PRAGMA quick_check``) and made a plain single file before it is renamed to PATH.
On PostgreSQL it says to use ``pg_dump``.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from pbm_emergo.config import Config, load_config

BUSY_TIMEOUT_MS = 10_000


def register(commands: Any, config_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``stats`` and ``backup`` to the ``admin`` subcommands."""
    stats = commands.add_parser(
        "stats", help="queues, dead letters, boards and mail figures, once (--json too)"
    )
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.add_argument(
        "--metrics-url", dest="metrics_url", metavar="URL",
        help="also the counters of a running server, e.g. http://127.0.0.1:9108/metrics",
    )
    stats.set_defaults(func=admin_stats)
    backup = commands.add_parser(
        "backup", help="copy the live SQLite database to PATH (PostgreSQL: use pg_dump)"
    )
    backup.add_argument("path", metavar="PATH")
    backup.add_argument("--force", action="store_true", help="replace PATH if it exists")
    backup.set_defaults(func=admin_backup)
    for parser in (stats, backup):
        config_options(parser)


def _config(args: argparse.Namespace) -> Config:
    return load_config(
        {"data_dir": args.data_dir, "database_url": args.database_url}, config_file=args.config
    )


def _fail(message: str) -> int:
    print(f"pbm-emergo admin: {message}", file=sys.stderr)
    return 1


# --- stats -----------------------------------------------------------------------------


def admin_stats(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import DBAPIError
    from sqlalchemy.orm import Session

    from pbm_emergo.db.session import create_engine_for
    from pbm_emergo.db.stats import queue_figures, totals
    from pbm_emergo.db.types import utcnow

    config = _config(args)
    engine = create_engine_for(config.effective_database_url)
    try:
        with Session(engine) as session, session.begin():
            now = utcnow()
            figures = queue_figures(session, now)
            all_mail = totals(session, now)
    except DBAPIError as err:
        return _fail(f"database error ({err.orig}); is the database migrated?")
    finally:
        engine.dispose()
    counters: dict[str, Any] | None = None
    if args.metrics_url:
        try:
            counters = process_counters(args.metrics_url)
        except (OSError, ValueError) as err:
            return _fail(f"could not read {args.metrics_url}: {err}")
    result: dict[str, Any] = {
        "database": make_url(config.effective_database_url).render_as_string(hide_password=True),
        "queues": figures.as_dict(),
        "inbound": all_mail.inbound,
        "outbound": all_mail.outbound,
        "boards": all_mail.boards,
        "last_hour": {
            "processed": all_mail.processed_last_hour,
            "receipt_to_done_ms_p50": all_mail.latency_ms_p50,
            "receipt_to_done_ms_p99": all_mail.latency_ms_p99,
        },
    }
    if counters is not None:
        result["server"] = counters
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(format_stats(result))
    return 0


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{status} {count}" for status, count in counts.items()) or "none"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f} ms"


def format_stats(result: dict[str, Any]) -> str:
    q = result["queues"]
    hour = result["last_hour"]
    lines = [
        f"database   {result['database']}",
        f"inbound    pending {q['inbound_pending']}, processing {q['inbound_processing']}, "
        f"oldest pending {q['inbound_oldest_pending_age_seconds']:.0f} s, "
        f"dead letters {q['inbound_dead']}",
        f"           all mail: {_counts(result['inbound'])}",
        f"outbound   pending {q['outbound_pending']} (retrying {q['outbound_retrying']}), "
        f"sending {q['outbound_sending']}, oldest pending "
        f"{q['outbound_oldest_pending_age_seconds']:.0f} s, dead {q['outbound_dead']}",
        f"           all mail: {_counts(result['outbound'])}",
        f"boards     active {q['active_boards']}; all: {_counts(result['boards'])}",
        f"last hour  {hour['processed']} mails processed; receipt to done p50 "
        f"{_ms(hour['receipt_to_done_ms_p50'])}, p99 {_ms(hour['receipt_to_done_ms_p99'])}",
    ]
    server = result.get("server")
    if server is not None:
        lines.append(f"server     (counters since its start, from {server['url']})")
        lines.append(f"  accepted {server['accepted']} (duplicates {server['duplicates']}); "
                     f"SMTP errors {_counts(server['smtp_errors'])}")
        lines.append(f"  replies  {_counts(server['replies'])}; queued {server['queued']}")
        for command, row in server["commands"].items():
            lines.append(
                f"  {command:<18} {_counts(row['results'])}; mean {row['mean_ms']:.1f} ms"
            )
    return "\n".join(lines)


def process_counters(url: str) -> dict[str, Any]:
    """The counters of a running server's ``/metrics`` (see :mod:`pbm_emergo.telemetry.metrics`)."""
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 - the operator's URL
        text = answer.read().decode()
    out: dict[str, Any] = {"url": url, "accepted": 0, "duplicates": 0, "smtp_errors": {},
                           "replies": {}, "queued": 0, "commands": {}}
    sums: dict[str, float] = {}
    counts: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            name, labels, value = sample.name, sample.labels, sample.value
            if name == "pbm_emergo_mails_accepted_total":
                key = "duplicates" if labels.get("duplicate") == "true" else "accepted"
                out[key] += int(value)
            elif name == "pbm_emergo_smtp_answers_total" and value:
                out["smtp_errors"][labels["code"]] = int(value)
            elif name == "pbm_emergo_replies_total":
                out["replies"][labels["result"]] = int(value)
            elif name == "pbm_emergo_replies_queued_total":
                out["queued"] = int(value)
            elif name == "pbm_emergo_mails_processed_total" and value:
                row = out["commands"].setdefault(labels["command"], {"results": {}})
                row["results"][labels["result"]] = int(value)
            elif name == "pbm_emergo_mail_processing_seconds_sum":
                sums[labels["command"]] = value
            elif name == "pbm_emergo_mail_processing_seconds_count":
                counts[labels["command"]] = value
    for command, row in out["commands"].items():
        n = counts.get(command, 0)
        row["mean_ms"] = sums.get(command, 0.0) / n * 1000 if n else 0.0
    return out


# --- backup ----------------------------------------------------------------------------


def admin_backup(args: argparse.Namespace) -> int:
    config = _config(args)
    url = make_url(config.effective_database_url)
    if url.get_backend_name() != "sqlite":
        plain = url.set(drivername="postgresql").render_as_string(hide_password=True)
        return _fail(
            "this is PostgreSQL: back it up with pg_dump, which takes a consistent snapshot "
            f"while the server runs: pg_dump --format=custom --file={args.path} '{plain}' "
            "(restore: pg_restore --dbname=... FILE)"
        )
    source = url.database
    if not source or source == ":memory:" or not Path(source).exists():
        return _fail(f"no SQLite database at {source}")
    target = Path(args.path)
    if target.exists() and not args.force:
        return _fail(f"{target} exists (--force replaces it)")
    try:
        started = time.monotonic()
        pages = backup_sqlite(Path(source), target)
    except (sqlite3.Error, OSError) as err:
        return _fail(f"backup failed: {err}")
    print(f"{source} -> {target}: {pages} pages, {target.stat().st_size} bytes in "
          f"{time.monotonic() - started:.2f} s (quick_check ok)")
    return 0


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy the SQLite database ``source`` to ``target`` with the online backup API, as one
    consistent snapshot, while other connections read and write; returns the page count.
    The copy is written next to ``target`` and renamed when complete and checked."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    partial.unlink(missing_ok=True)
    src = sqlite3.connect(source, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        src.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        dst = sqlite3.connect(partial)
        try:
            # All pages in one step: one read transaction, so one snapshot. In WAL mode a
            # reader does not hold up the server's writers, nor they it.
            src.backup(dst, pages=-1)
            check = dst.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"the copy failed its check: {check}")
            dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            pages = int(dst.execute("PRAGMA page_count").fetchone()[0])
        finally:
            dst.close()
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        src.close()
    os.replace(partial, target)
    return pages


__all__ = ["admin_backup", "admin_stats", "backup_sqlite", "format_stats", "process_counters",
           "register"]
