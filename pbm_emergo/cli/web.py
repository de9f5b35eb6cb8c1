"""``pbm-emergo web``: the read-only web view on its own, and the process that
``pbm-emergo serve --http-port N`` starts beside the mail server.

uvicorn serves the Starlette application of :mod:`pbm_emergo.web.app`. It listens on
loopback by default: in production a reverse proxy (deploy/nginx-pbm-emergo.conf) faces the
internet, terminates TLS and passes requests on.
"""

from __future__ import annotations

import argparse
import logging
import signal
from types import FrameType
from typing import Any

from pbm_emergo.cli.settings import add_config_options, config_for
from pbm_emergo.config import Config
from pbm_emergo.ops.processes import HELPERS, exit_with_parent, named
from pbm_emergo.telemetry.logs import library_level, setup_logging

log = logging.getLogger(__name__)

DEFAULT_PORT = 8080
HELP = "run the read-only web view of the boards (HTTP)"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("web", help=HELP, description=HELP)
    add_config_options(parser)
    parser.add_argument("--host", dest="http_host",
                        help="address to listen on (PBM_EMERGO_HTTP_HOST, default 127.0.0.1)")
    parser.add_argument("--port", dest="http_port", type=int,
                        help=f"port (PBM_EMERGO_HTTP_PORT, default {DEFAULT_PORT})")
    parser.add_argument("--log-level", dest="log_level", default="INFO")
    parser.set_defaults(func=run_web)


def run_web(args: argparse.Namespace) -> int:
    config = config_for(args, ("http_host", "http_port"))
    setup_logging(getattr(logging, str(args.log_level).upper(), logging.INFO), config.log_format)
    serve_web(config, config.http_port or DEFAULT_PORT)
    return 0


def serve_web(config: Config, port: int) -> None:
    """Serve the web view of ``config``'s database on ``config.http_host``:``port`` until
    SIGTERM or SIGINT (uvicorn's own handling: requests in flight are finished)."""
    import uvicorn

    from pbm_emergo.db.session import get_sessionmaker
    from pbm_emergo.web.app import create_app

    app = create_app(get_sessionmaker(config), config)
    log.info("web view on http://%s:%d/", config.http_host, port)
    # uvicorn stops gracefully on SIGTERM/SIGINT, then raises the signal again for the
    # handler it found: with this one, a stop is a normal end (status 0, as for serve).
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _stopped)
    uvicorn.run(
        app,
        host=config.http_host,
        port=port,
        # uvicorn logs through ours (setup_logging): one format, its start and stop lines
        # at DEBUG only.
        log_config=None,
        log_level=library_level(logging.getLogger().level),
        access_log=False,
        server_header=False,
        # Behind the reverse proxy: its X-Forwarded-* headers are believed from loopback only.
        proxy_headers=True,
        forwarded_allow_ips="127.0.0.1",
    )


def _stopped(signum: int, frame: FrameType | None) -> None:
    log.info("web view stopped by signal %d", signum)


def run_web_process(config: Config, log_level: int = logging.INFO) -> None:
    exit_with_parent()  # a server killed with SIGKILL leaves no web view behind
    setup_logging(log_level, config.log_format)
    serve_web(config, config.http_port)


class WebProcess:
    """The web view as a process of ``pbm-emergo serve`` (``--http-port``): the listener's
    process keeps to accepting mail. Started again if it dies; stopped with the server."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.context = HELPERS
        self.process: Any = None

    def start(self) -> None:
        self.process = self.context.Process(
            target=run_web_process, args=(self.config, logging.getLogger().level),
            name="web", daemon=True,
        )
        self.process.start()

    def check(self) -> None:
        if self.process is not None and not self.process.is_alive():
            log.error("the web view exited with %s; starting it again", self.process.exitcode)
            self.start()
            log.info("started again: %s", named([self.process]))

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None:
            return
        self.process.terminate()  # SIGTERM: uvicorn finishes the requests in flight
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.process = None


__all__ = ["WebProcess", "register", "run_web", "run_web_process", "serve_web"]
