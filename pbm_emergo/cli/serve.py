"""``pbm-emergo serve`` and ``pbm-emergo worker``: the mail pipeline of
:mod:`pbm_emergo.ops.server` from the command line, with the metrics endpoint and (``serve
--http-port``) the web view beside it.

SIGTERM or SIGINT: the listener stops accepting first, each worker finishes the message in
hand, the sender finishes the mail in hand, then the process exits with status 0.

At INFO, startup logs a few lines (:func:`_log_startup`): the version, the database and its
schema revision, where the server listens, where replies go, and the web view's address (from
the web view's process).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from types import FrameType
from typing import Any

from sqlalchemy.engine import make_url

from pbm_emergo import __version__
from pbm_emergo.cli.settings import add_config_options, config_for
from pbm_emergo.cli.web import WebProcess, run_web_process
from pbm_emergo.config import EVENT_LOOPS, Config, private_folder
from pbm_emergo.db.session import (
    current_revision,
    get_engine,
    get_sessionmaker,
    head_revision,
    upgrade_to_head,
)
from pbm_emergo.db.types import utcnow
from pbm_emergo.ops.database_metrics import metrics_endpoint
from pbm_emergo.ops.listeners import run_listener_process
from pbm_emergo.ops.processes import named, preload_helpers
from pbm_emergo.ops.robot_process import run_robot_process
from pbm_emergo.ops.sender_process import run_sender_process
from pbm_emergo.ops.server import MailServer
from pbm_emergo.ops.workers import run_worker_process
from pbm_emergo.telemetry import metrics
from pbm_emergo.telemetry.logs import setup_logging

log = logging.getLogger(__name__)


def register(subparsers: Any) -> None:
    for name, help_text in (
        ("serve", "run the mail server: SMTP listener, workers, outbox sender, scheduler"),
        ("worker", "run only the inbox workers and the outbox sender (more processes)"),
    ):
        parser = subparsers.add_parser(name, help=help_text, description=help_text)
        add_config_options(parser)
        parser.add_argument("--address", help="the server's own address (PBM_EMERGO_ADDRESS)")
        parser.add_argument("--outbound",
                            help="smtp://host:port or maildir:PATH (PBM_EMERGO_OUTBOUND)")
        parser.add_argument("--smtputf8", choices=("auto", "yes", "no"),
                            help="whether the relay delivers to non-ASCII addresses; auto "
                                 "asks it (PBM_EMERGO_SMTPUTF8, default auto)")
        parser.add_argument("--reply-limit", dest="reply_limit", type=int,
                            help="replies to one address per hour (PBM_EMERGO_REPLY_LIMIT)")
        parser.add_argument("--workers", type=int,
                            help="inbox worker processes, default one per CPU (PBM_EMERGO_WORKERS)")
        if name == "serve":
            parser.add_argument("--listeners", type=int,
                                help="processes accepting SMTP, default one per CPU, at most 4 "
                                     "(PBM_EMERGO_LISTENERS)")
        parser.add_argument("--worker-nice", dest="worker_nice", type=int,
                            help="how much lower the CPU priority of the workers, the outbox "
                                 "sender and the robots is than the listener's "
                                 "(PBM_EMERGO_WORKER_NICE, default 19; 0: equal)")
        parser.add_argument("--listener-first-seconds", dest="listener_first_seconds",
                            type=float,
                            help="while SMTP clients are sending, the workers and the outbox "
                                 "sender wait for the listeners up to this long at a stretch "
                                 "(PBM_EMERGO_LISTENER_FIRST_SECONDS, default 2; 0: never)")
        parser.add_argument("--migrate", action="store_true",
                            help="migrate the database to the newest revision first "
                                 "(automatic on the embedded SQLite default)")
        parser.add_argument("--log-level", dest="log_level", default="INFO")
        parser.add_argument("--log-format", dest="log_format", choices=("text", "json"),
                            help="text (details as key=value) or json (PBM_EMERGO_LOG_FORMAT)")
        parser.add_argument("--metrics-port", dest="metrics_port", type=int,
                            help="serve Prometheus metrics on this port, /metrics "
                                 "(PBM_EMERGO_METRICS_PORT; default off)")
        parser.add_argument("--metrics-host", dest="metrics_host",
                            help="the address for --metrics-port (PBM_EMERGO_METRICS_HOST, "
                                 "default 127.0.0.1)")
        if name == "serve":
            parser.add_argument("--host", dest="smtp_host", help="PBM_EMERGO_SMTP_HOST")
            parser.add_argument("--port", dest="smtp_port", type=int, help="PBM_EMERGO_SMTP_PORT")
            parser.add_argument("--lmtp", dest="listen_protocol", action="store_const",
                                const="lmtp", help="answer LMTP instead of SMTP on the port, "
                                "for an MTA delivering by LMTP (PBM_EMERGO_LISTEN_PROTOCOL="
                                "lmtp; default smtp)")
            parser.add_argument("--max-message-size", dest="max_message_size", type=int,
                                help="bytes (PBM_EMERGO_MAX_MESSAGE_SIZE)")
            parser.add_argument("--inbox", help="read the mail from this mailbox instead of "
                                "listening: imaps://USER@host:port/FOLDER, the password in "
                                "PBM_EMERGO_INBOX_PASSWORD_FILE (PBM_EMERGO_INBOX)")
            parser.add_argument("--event-loop", dest="event_loop", choices=EVENT_LOOPS,
                                help="the listener's event loop (PBM_EMERGO_EVENT_LOOP, "
                                     "default uvloop)")
            parser.add_argument("--http-port", dest="http_port", type=int,
                                help="also serve the read-only web view on this port, on "
                                     "PBM_EMERGO_HTTP_HOST (PBM_EMERGO_HTTP_PORT; default off)")
            parser.add_argument("--no-workers", dest="no_workers", action="store_true",
                                help="run no inbox workers nor outbox sender here: only the "
                                     "listener and the scheduler (`pbm-emergo worker` "
                                     "processes do the rest)")
        parser.set_defaults(func=run_serve if name == "serve" else run_worker)


_OPTION_NAMES = ("address", "outbound", "reply_limit", "workers",
                 "listeners", "worker_nice", "listener_first_seconds",
                 "smtp_host", "smtp_port", "max_message_size", "http_port", "log_format",
                 "metrics_port", "metrics_host", "smtputf8", "event_loop",
                 "listen_protocol", "inbox")


def _config_from(args: argparse.Namespace) -> Config:
    return config_for(args, _OPTION_NAMES)


def run_serve(args: argparse.Namespace) -> int:
    return _run(args, listen=True)


def run_worker(args: argparse.Namespace) -> int:
    return _run(args, listen=False)


def _run(args: argparse.Namespace, *, listen: bool) -> int:
    config = _config_from(args)
    setup_logging(getattr(logging, str(args.log_level).upper(), logging.INFO), config.log_format)
    log.info("pbm-emergo %s: %s, data dir %s", __version__, "serve" if listen else "worker",
             config.data_dir.resolve())
    opened = private_folder(config.data_dir)
    if opened is not None:
        log.warning("the data dir %s was open to other users (mode %o): made private (700)",
                    config.data_dir.resolve(), opened)
    migrated_from: str | None = None
    if args.migrate or (listen and config.is_embedded_database):
        migrated_from = current_revision(get_engine(config)) or ""
        upgrade_to_head(config)
    current, head = current_revision(get_engine(config)), head_revision()
    if current != head:
        print(
            f"pbm-emergo: the database is at schema revision {current or '(empty)'}, not "
            f"{head}: run `pbm-emergo db upgrade` first, or add --migrate",
            file=sys.stderr,
        )
        return 1
    metrics_dir = None
    if config.metrics_port:
        # Before any process starts: they all count into this directory (see
        # pbm_emergo.telemetry.metrics).
        metrics_dir = metrics.use_multiprocess_dir()
    # Before any helper starts (the fork server imports their modules once, when it starts).
    preload_helpers(run_worker_process, run_sender_process, run_listener_process,
                    run_robot_process, run_web_process)
    server = MailServer(config, get_sessionmaker(config), listen=listen, processes=True,
                        work=not getattr(args, "no_workers", False))
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: shutting down", signum)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server.start()
    endpoint = None
    if metrics_dir is not None:
        endpoint = metrics_endpoint(
            config.metrics_host, config.metrics_port, get_sessionmaker(config), utcnow
        )
        endpoint.start()
    web = None
    if listen and config.http_port:
        web = WebProcess(config)
        web.start()
    _log_startup(config, listen=listen, work=server.work, revision=current,
                 migrated_from=migrated_from)
    helpers = server.helpers() + ([web.process] if web is not None else [])
    if helpers:
        log.info("processes: %s", named(helpers))
    while not stop.wait(1.0):
        server.check_workers()
        if web is not None:
            web.check()
    if web is not None:
        web.stop()
    server.stop()
    if endpoint is not None:
        endpoint.stop()
    if metrics_dir is not None:
        metrics.remove_multiprocess_dir(metrics_dir)
    log.info("stopped")
    return 0


def _log_startup(
    config: Config, *, listen: bool, work: bool, revision: str | None, migrated_from: str | None
) -> None:
    """The operator's startup lines: the database, where mail comes in and goes out, and the
    metrics endpoint (the version came first; the web view's process logs its address)."""
    migrated = ""
    if migrated_from == "":
        migrated = " (created now)"
    elif migrated_from is not None and migrated_from != revision:
        migrated = f" (migrated from {migrated_from})"
    log.info("database %s at schema revision %s%s",
             _redact(config.effective_database_url), revision, migrated)
    if listen and (not config.inbox or config.inbox_with_listener == "yes"):
        processes = config.listener_count
        log.info("listening on %s:%d (%s, %d process%s) for mail to %s",
                 config.smtp_host, config.smtp_port, config.listen_protocol.upper(), processes,
                 "" if processes == 1 else "es", config.address)
    if work:
        log.info("replies go to %s; %d inbox worker%s", config.effective_outbound,
                 config.worker_count, "" if config.worker_count == 1 else "s")
    else:
        log.info("no inbox workers here: `pbm-emergo worker` processes answer the mail")
    if config.metrics_port:
        log.info("metrics on http://%s:%d/metrics", config.metrics_host, config.metrics_port)


def _redact(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001
        return "(unparseable URL)"


__all__ = ["register", "run_serve", "run_worker"]
