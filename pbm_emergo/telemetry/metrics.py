"""Prometheus metrics (the ``prometheus-client`` library).

Two kinds of figures:

- **Counted where they happen** (counters and a histogram, :func:`get`): SMTP answers by
  code, mails accepted, mails processed by command and result with their processing time,
  replies queued, sent, retried, failed and dead. Counting costs a few microseconds and no
  database work.
- **Read from the database at scrape time** (the collector that
  :mod:`pbm_emergo.ops.database_metrics` gives the endpoint: this module knows no database):
  inbound and outbound queue depth, the age of the oldest waiting mail, dead letters, active
  boards. These are facts about the shared database, the same whichever process is asked, so
  they are read once per scrape (a few indexed queries) and never per mail.

``serve`` and ``worker`` run several processes (the listener, the inbox workers, the outbox
sender). With ``--metrics-port`` they use prometheus-client's *multiprocess mode*: every
process writes its counters to memory-mapped files in a private directory
(``PROMETHEUS_MULTIPROC_DIR``, made at start and removed at exit), and the main process
serves the sum of all of them on one port. So one ``serve`` (or ``worker``) is one scrape
target, whatever its number of processes, and a worker process that is restarted keeps
adding to the same totals. Each ``pbm-emergo worker`` on another machine (or beside the
server) is a scrape target of its own, with its own ``--metrics-port``; sum them in
Prometheus (``sum without (instance) (...)``). The database figures are the same from every
target: use ``max`` over them, not ``sum``.

Without ``--metrics-port`` the counters stay in each process's memory (nothing reads them;
it costs nothing worth avoiding).
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
PROCESSING_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: The ``command`` label of a mail that names no command, and of one deliberately not run
#: (the other values are the registered command words: ``emergo move``, ``signup``...).
NOT_A_COMMAND = "unknown"
NOT_ANSWERED = "not-answered"


class Metrics:
    """The counted metrics of one process (see the module docstring for their meaning)."""

    def __init__(self) -> None:
        from prometheus_client import Counter, Histogram

        self.smtp_answers = Counter(
            "pbm_emergo_smtp_answers",
            "SMTP error answers (4xx, 5xx) given by the listener, by code: 550 unknown "
            "recipient, 552 too large, 553 sender refused, 451 could not store, 421 stopping",
            ["code"],
        )
        self.accepted = Counter(
            "pbm_emergo_mails_accepted",
            "Mails answered 250 after DATA: stored (duplicate=\"false\") or already stored "
            "under the same Message-ID and envelope sender (duplicate=\"true\")",
            ["duplicate"],
        )
        self.processed = Counter(
            "pbm_emergo_mails_processed",
            "Inbound mails handled by a worker, by command and result (done, ignored, retry, "
            "dead, lost-claim)",
            ["command", "result"],
        )
        self.processing = Histogram(
            "pbm_emergo_mail_processing_seconds",
            "Time a worker took for one mail, from its claim to its commit, by command",
            ["command"],
            buckets=PROCESSING_BUCKETS,
        )
        self.replies_queued = Counter(
            "pbm_emergo_replies_queued", "Replies put in the outbox by the workers"
        )
        self.replies = Counter(
            "pbm_emergo_replies",
            "Outbox deliveries by result: sent (the relay took it), retried (a 4xx or no "
            "relay: tried again later), failed (a 5xx: not retried), dead (attempts used up)",
            ["result"],
        )
        self.dead_letters = Counter(
            "pbm_emergo_dead_letters",
            "Inbound mails dead-lettered after their attempts were used up",
        )
        for code in ("421", "451", "550", "552", "553"):
            self.smtp_answers.labels(code)
        for duplicate in ("false", "true"):
            self.accepted.labels(duplicate)
        for result in ("sent", "retried", "failed", "dead"):
            self.replies.labels(result)

    def all(self) -> list[Any]:
        return [self.smtp_answers, self.accepted, self.processed, self.processing,
                self.replies_queued, self.replies, self.dead_letters]


class _Counted:
    """This process's counters, for an endpoint's own registry (single-process mode)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Any]:
        for metric in self.metrics.all():
            yield from metric.collect()


_metrics: Metrics | None = None
_lock = threading.Lock()


def get() -> Metrics:
    """This process's metrics, made on first use (after :func:`use_multiprocess_dir`, in a
    server that exposes them)."""
    global _metrics
    if _metrics is None:
        with _lock:
            if _metrics is None:
                _metrics = Metrics()
    return _metrics


# --- multiprocess mode and the HTTP endpoint -------------------------------------------


def use_multiprocess_dir(path: Path | None = None) -> Path:
    """Put this process (and the processes it starts from now on, which inherit the
    environment) in multiprocess mode, in ``path`` or a new private directory. Call it
    before the first :func:`get`. Returns the directory."""
    if path is None:
        path = Path(tempfile.mkdtemp(prefix="pbm-emergo-metrics-"))
    path.mkdir(parents=True, exist_ok=True)
    os.environ[MULTIPROC_ENV] = str(path)
    values = sys.modules.get("prometheus_client.values")
    if values is not None:
        # prometheus-client picks its value class when first imported: pick again.
        values.ValueClass = values.get_value_class()  # type: ignore[attr-defined]
    return path


def is_multiprocess() -> bool:
    return bool(os.environ.get(MULTIPROC_ENV))


class ProcessFilesCollector:
    """The counters of every process, summed from their files in the multiprocess
    directory, as prometheus-client's ``MultiProcessCollector`` does, but without the files
    that are still empty.

    A process makes its file and only then gives it its size, so for a moment the file is
    there with 0 bytes; ``MultiProcessCollector`` then fails the whole scrape with
    ``struct.error`` (HTTP 500), and for good if the process died in that moment
    (prometheus/client_python issue 1199; our metrics test hit it as a worker started).
    An empty file holds no counts yet, so leaving it out loses nothing."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def collect(self) -> Iterator[Any]:
        from prometheus_client.multiprocess import MultiProcessCollector

        files = []
        for file in self.path.glob("*.db"):
            try:
                if file.stat().st_size > 0:
                    files.append(str(file))
            except FileNotFoundError:  # its process ended and removed it meanwhile
                continue
        return iter(MultiProcessCollector.merge(files, accumulate=True))  # type: ignore[no-untyped-call]


class MetricsEndpoint:
    """``/metrics`` over HTTP on ``host:port`` (prometheus-client's own server, in a thread
    of the main process): the counters of every process of this server, and what the
    ``collectors`` read at scrape time (the server gives the database figures)."""

    def __init__(self, host: str, port: int, collectors: Iterable[Any] = ()) -> None:
        self.host = host
        self.port = port
        self.collectors = list(collectors)
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def registry(self) -> Any:
        from prometheus_client import CollectorRegistry

        get()  # the counters exist (at zero) before the first mail
        if is_multiprocess():
            registry = CollectorRegistry()
            registry.register(ProcessFilesCollector(Path(os.environ[MULTIPROC_ENV])))
        else:
            registry = CollectorRegistry()
            registry.register(_Counted(get()))
        for collector in self.collectors:
            registry.register(collector)
        return registry

    def start(self) -> None:
        from prometheus_client import start_http_server

        self._server, self._thread = start_http_server(
            self.port, addr=self.host, registry=self.registry()
        )
        self.port = self._server.server_port
        log.info("metrics on http://%s:%d/metrics", self.host, self.port)

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None


def remove_multiprocess_dir(path: Path) -> None:
    """Remove the directory made by :func:`use_multiprocess_dir` (at exit)."""
    shutil.rmtree(path, ignore_errors=True)
    if os.environ.get(MULTIPROC_ENV) == str(path):
        del os.environ[MULTIPROC_ENV]


__all__ = [
    "NOT_ANSWERED",
    "NOT_A_COMMAND",
    "Metrics",
    "MetricsEndpoint",
    "ProcessFilesCollector",
    "get",
    "is_multiprocess",
    "remove_multiprocess_dir",
    "use_multiprocess_dir",
]
