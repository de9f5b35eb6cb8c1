"""Prometheus metrics through the real listener, workers and sender (threads of this
process, on SQLite and PostgreSQL), and through `pbm-emergo serve --metrics-port` (its
processes in multiprocess mode), scraped over HTTP as Prometheus does."""

from __future__ import annotations

import dataclasses
import json
import re
import signal
import smtplib
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.commands.registry import command_label
from pbm_emergo.config import Config
from pbm_emergo.db.types import utcnow
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.database_metrics import metrics_endpoint
from pbm_emergo.ops.server import MailServer
from pbm_emergo.telemetry.metrics import MetricsEndpoint, ProcessFilesCollector
from tests.support.mail import SERVER_ADDRESS, Relay, command_mail, free_port, send, wait_for
from tests.support.servers import descendants
from tests.support.waits import scaled

from .support import clean_env, scrape, value

FAST = Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1))


@pytest.fixture
def endpoint(session_factory: sessionmaker[Session]) -> Iterator[MetricsEndpoint]:
    served = metrics_endpoint("127.0.0.1", 0, session_factory, utcnow)
    served.start()
    yield served
    served.stop()


def test_command_labels_are_the_registered_command_words() -> None:
    assert command_label("emergo move 101 ******** ******** e4") == "emergo move"
    assert command_label("EMERGO Challenge alice bob") == "emergo challenge"
    assert command_label("signup ******** ********") == "signup"
    assert command_label("help") == "help"
    assert command_label("******** what") == "unknown"
    assert command_label(None) == "unknown"
    assert command_label("help", not_answered=True) == "not-answered"


def test_mails_replies_and_queues_are_counted(
    config: Config, session_factory: sessionmaker[Session], relay: Relay,
    endpoint: MetricsEndpoint,
) -> None:
    server = MailServer(dataclasses.replace(config, outbound=relay.url), session_factory,
                        backoff=FAST, poll_seconds=0.2)
    before = scrape(endpoint.port)
    server.start()
    port = config.smtp_port
    try:
        send(port, command_mail("help", message_id="<m1@example.org>"))
        send(port, command_mail("help", message_id="<m1@example.org>"))  # a duplicate
        send(port, command_mail("emergo move 101 alice secret e4", message_id="<m2@example.org>"))
        with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test") as smtp:
            code, _ = smtp.ehlo()
            smtp.mail("bob@example.org")
            assert smtp.rcpt("nobody@emergo.test")[0] == 550
            smtp.rset()
            assert smtp.mail("j\u202erg@example.org", ["SMTPUTF8"])[0] == 553
        wait_for(lambda: len(relay.handler.messages()) == 2)
        after = wait_for(
            lambda: (s := scrape(endpoint.port))
            and value(s, "pbm_emergo_replies_total", result="sent")
            - value(before, "pbm_emergo_replies_total", result="sent") == 2 and s
        )
        # A relay that answers 451, then one that answers 550.
        relay.handler.response = "451 4.3.0 try later"
        send(port, command_mail("help", sender="carol@example.org"))
        wait_for(lambda: value(scrape(endpoint.port), "pbm_emergo_replies_total",
                               result="retried") > value(after, "pbm_emergo_replies_total",
                                                         result="retried"))
        relay.handler.response = "550 5.1.1 no such user"
        final = wait_for(
            lambda: (s := scrape(endpoint.port))
            and value(s, "pbm_emergo_replies_total", result="failed")
            > value(after, "pbm_emergo_replies_total", result="failed") and s
        )
    finally:
        server.stop()

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("pbm_emergo_mails_accepted_total", duplicate="false") == 2
    assert delta("pbm_emergo_mails_accepted_total", duplicate="true") == 1
    assert delta("pbm_emergo_smtp_answers_total", code="550") == 1
    assert delta("pbm_emergo_smtp_answers_total", code="553") == 1
    assert delta("pbm_emergo_mails_processed_total", command="help", result="done") == 1
    assert delta("pbm_emergo_mails_processed_total", command="emergo move",
                 result="done") == 1
    assert delta("pbm_emergo_mail_processing_seconds_count", command="help") == 1
    assert delta("pbm_emergo_mail_processing_seconds_bucket", command="help", le="+Inf") == 1
    assert delta("pbm_emergo_mail_processing_seconds_sum", command="help") > 0
    assert delta("pbm_emergo_replies_queued_total") == 2
    # Read from the database at scrape time.
    assert value(final, "pbm_emergo_database_up") == 1
    assert value(final, "pbm_emergo_inbound_queue_depth", status="pending") == 0
    assert value(final, "pbm_emergo_inbound_queue_depth", status="processing") == 0
    assert value(final, "pbm_emergo_inbound_oldest_pending_age_seconds") == 0
    assert value(final, "pbm_emergo_active_boards") == 0
    assert value(final, "pbm_emergo_dead_letters_stored", queue="inbound") == 0
    assert value(final, "pbm_emergo_outbound_queue_depth", status="pending") == 0


def test_queue_depth_and_age_of_mail_nobody_handles(
    config: Config, session_factory: sessionmaker[Session], endpoint: MetricsEndpoint
) -> None:
    # The listener alone (no workers): what it stores waits, and the scrape shows it.
    server = MailServer(config, session_factory, work=False, poll_seconds=0.2)
    server.start()
    try:
        for n in range(3):
            send(config.smtp_port, command_mail("help", message_id=f"<w{n}@example.org>"))
        time.sleep(1.1)
        samples = scrape(endpoint.port)
    finally:
        server.stop()
    assert value(samples, "pbm_emergo_inbound_queue_depth", status="pending") == 3
    assert value(samples, "pbm_emergo_inbound_oldest_pending_age_seconds") >= 1.0


@pytest.mark.slow
def test_serve_exposes_the_sum_of_its_processes_and_logs_json(tmp_path: Path) -> None:
    """`serve --metrics-port`: the listener counts in the main process, the worker in its
    own; one scrape shows both. The JSON log has one line per mail."""
    port, metrics_port = free_port(), free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "pbm_emergo", "serve", "--data-dir", str(tmp_path / "data"),
             "--port", str(port), "--address", SERVER_ADDRESS, "--workers", "2",
             "--metrics-port", str(metrics_port), "--log-format", "json"],
            stdout=out, stderr=subprocess.STDOUT, env=clean_env(),
        )  # fmt: skip
    try:
        wait_for(lambda: _answers(metrics_port), timeout=60, interval=0.2)
        for n in range(4):
            send(port, command_mail("help", sender=f"p{n}@example.org",
                                    message_id=f"<s{n}@example.org>"))
        # A reply can be sent before its worker has counted the mail done: wait for both.
        samples = wait_for(
            lambda: (s := scrape(metrics_port))
            and value(s, "pbm_emergo_replies_total", result="sent") == 4
            and value(s, "pbm_emergo_mails_processed_total", command="help",
                      result="done") == 4
            and s,
            timeout=60, interval=0.2,
        )
        metrics_dir = _metrics_dir(process.pid)
        helpers = descendants(process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(scaled(60))
    assert process.returncode == 0
    assert value(samples, "pbm_emergo_mails_accepted_total", duplicate="false") == 4
    assert value(samples, "pbm_emergo_mails_processed_total", command="help", result="done") == 4
    assert value(samples, "pbm_emergo_mail_processing_seconds_count", command="help") == 4
    assert value(samples, "pbm_emergo_database_up") == 1
    assert metrics_dir is not None and not metrics_dir.exists()  # removed at exit
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert lines and all({"time", "level", "logger"} <= set(line) for line in lines)
    # Each helper process says which it is: they all have the fork server's command line.
    [named] = [line["message"] for line in lines
               if line.get("message", "").startswith("processes: ")]
    started = dict(re.findall(r"(\S+) \(pid (\d+)\)", named))
    assert {"worker-1", "worker-2", "outbox"} <= set(started), started
    assert {int(pid) for pid in started.values()} <= helpers
    mails = [line for line in lines if line.get("event") == "mail"]
    assert len(mails) == 4
    for line in mails:
        assert line["command"] == "help" and line["result"] == "done"
        assert line["sender"].endswith("@example.org") and line["ms"] > 0
        assert isinstance(line["id"], int) and line["replies"] == 1


def _answers(port: int) -> bool:
    try:
        scrape(port)
    except OSError:
        return False
    return True


def _metrics_dir(pid: int) -> Path | None:
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    del environ  # the directory is set after start: read it from the workers' environment
    for child in descendants(pid):
        for entry in Path(f"/proc/{child}/environ").read_bytes().split(b"\0"):
            if entry.startswith(b"PROMETHEUS_MULTIPROC_DIR="):
                return Path(entry.split(b"=", 1)[1].decode())
    return None


_COUNT_ONE = """
from pbm_emergo.telemetry import metrics
metrics.get().accepted.labels("false").inc()
"""


def test_a_process_file_still_empty_does_not_fail_the_scrape(tmp_path: Path) -> None:
    """A process makes its metrics file and only then sizes it: a scrape in that moment
    (or after the process died in it) finds an empty file. It holds no counts yet, and the
    others' counts are still there."""
    directory = tmp_path / "metrics"
    directory.mkdir()
    for _ in range(2):  # two processes, one mail each
        subprocess.run([sys.executable, "-c", _COUNT_ONE], check=True,
                       env=clean_env(PROMETHEUS_MULTIPROC_DIR=str(directory)))
    (directory / "counter_999999.db").touch()  # a process in the middle of starting
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in ProcessFilesCollector(directory).collect()
        for sample in family.samples
    }
    assert samples[("pbm_emergo_mails_accepted_total", (("duplicate", "false"),))] == 2
