"""The figures of ``pbm-emergo admin stats``: those of the metrics, once, for a terminal
(``--json`` for scripts): what the database says (queues, dead letters, boards, every mail by
status, the last hour's time from receipt to done), and with ``--metrics-url`` also the
counters of a running server (SMTP answers by code, mails by command and result, replies sent,
retried, failed), which live only in its processes.
"""

from __future__ import annotations

import urllib.request
from typing import Any

from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from pbm_emergo.config import Config
from pbm_emergo.db.reads import queue_figures, totals
from pbm_emergo.db.session import create_engine_for, reading_engine
from pbm_emergo.db.types import utcnow


class StatsError(Exception):
    """The figures could not be read (the message says why, in one line)."""


def read_stats(config: Config, metrics_url: str | None = None) -> dict[str, Any]:
    """The figures of ``config``'s database, and those of the server at ``metrics_url``."""
    engine = create_engine_for(config.effective_database_url)
    try:
        # A reading session: no write lock taken from a busy server's writers.
        with Session(reading_engine(engine)) as session, session.begin():
            now = utcnow()
            figures = queue_figures(session, now)
            all_mail = totals(session, now)
    except DBAPIError as err:
        raise StatsError(f"database error ({err.orig}); is the database migrated?") from None
    finally:
        engine.dispose()
    counters: dict[str, Any] | None = None
    if metrics_url:
        try:
            counters = process_counters(metrics_url)
        except (OSError, ValueError) as err:
            raise StatsError(f"could not read {metrics_url}: {err}") from None
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
    return result


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


__all__ = ["StatsError", "format_stats", "process_counters", "read_stats"]
