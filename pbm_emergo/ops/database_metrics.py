"""The database's figures on the metrics endpoint, read at scrape time: inbound and outbound
queue depth, the age of the oldest waiting mail, dead letters, active boards
(:func:`pbm_emergo.db.reads.queue_figures`).

These are facts about the shared database, the same whichever process is asked, so they are
read once per scrape (a few indexed queries) and never per mail. The server registers the
collector with the endpoint when it starts (:func:`metrics_endpoint`); the counted metrics
and the endpoint are :mod:`pbm_emergo.telemetry.metrics`, which knows no database.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.reads import queue_figures
from pbm_emergo.db.session import read_sessions
from pbm_emergo.telemetry.metrics import MetricsEndpoint

log = logging.getLogger(__name__)


class DatabaseCollector:
    """The scrape-time figures from the database (see the module docstring); also
    ``pbm_emergo_database_up`` (0 when the queries failed, with the other figures left
    out)."""

    def __init__(
        self, session_factory: sessionmaker[Session], clock: Callable[[], datetime]
    ) -> None:
        self.reads = read_sessions(session_factory)
        self.clock = clock

    def describe(self) -> list[Any]:
        return []  # figures are read at collect time only (no query at registration)

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        up = GaugeMetricFamily(
            "pbm_emergo_database_up", "1 if the database answered the scrape's queries"
        )
        try:
            with self.reads() as session:
                figures = queue_figures(session, self.clock())
        except Exception:  # noqa: BLE001 - a scrape must answer; the log says why
            log.warning("metrics: the database did not answer", exc_info=True)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        inbound = GaugeMetricFamily(
            "pbm_emergo_inbound_queue_depth",
            "Inbound mails waiting (pending) or in a worker's hands (processing)",
            labels=["status"],
        )
        inbound.add_metric(["pending"], figures.inbound_pending)
        inbound.add_metric(["processing"], figures.inbound_processing)
        yield inbound
        yield GaugeMetricFamily(
            "pbm_emergo_inbound_oldest_pending_age_seconds",
            "Seconds since the oldest pending inbound mail was received (0: none waits)",
            value=figures.inbound_oldest_pending_age_seconds,
        )
        outbound = GaugeMetricFamily(
            "pbm_emergo_outbound_queue_depth",
            "Replies not yet sent: pending (due, or waiting for a retry), of which retrying "
            "(failed at least once), and sending (claimed by the sender)",
            labels=["status"],
        )
        outbound.add_metric(["pending"], figures.outbound_pending)
        outbound.add_metric(["retrying"], figures.outbound_retrying)
        outbound.add_metric(["sending"], figures.outbound_sending)
        yield outbound
        yield GaugeMetricFamily(
            "pbm_emergo_outbound_oldest_pending_age_seconds",
            "Seconds since the oldest pending reply was queued (0: none waits)",
            value=figures.outbound_oldest_pending_age_seconds,
        )
        dead = GaugeMetricFamily(
            "pbm_emergo_dead_letters_stored",
            "Dead letters in the database now (inbound: run 5 times without success; "
            "outbound: attempts used up); `pbm-emergo admin requeue` runs one again",
            labels=["queue"],
        )
        dead.add_metric(["inbound"], figures.inbound_dead)
        dead.add_metric(["outbound"], figures.outbound_dead)
        yield dead
        yield GaugeMetricFamily(
            "pbm_emergo_active_boards", "Boards being played", value=figures.active_boards
        )


def metrics_endpoint(
    host: str, port: int, session_factory: sessionmaker[Session], clock: Callable[[], datetime]
) -> MetricsEndpoint:
    """The server's ``/metrics``: the counters of its processes and the database's figures."""
    return MetricsEndpoint(host, port, [DatabaseCollector(session_factory, clock)])


__all__ = ["DatabaseCollector", "metrics_endpoint"]
