"""``pbm-emergo deliver``: store one mail read from standard input, for an MTA that pipes
mail into a command (Postfix's ``pipe`` transport, a ``.forward``, procmail).

The mail goes through the SMTP listener's own checks, in order: the sender as at MAIL FROM,
each recipient as at RCPT, the size limit, then what DATA does (parse, describe, store in the
durable inbox in one transaction, a duplicate Message-ID answered as received). The listener's
SMTP answer becomes the exit status the MTA understands (``sysexits.h``): 0 stored (or a
duplicate), 75 (EX_TEMPFAIL) to have the MTA keep the mail and try again later, 65
(EX_DATAERR) or 69 (EX_UNAVAILABLE) to have it bounced. The reason is one line on standard
error, which the MTA puts in its bounce or its log. The workers of a running ``serve`` or
``pbm-emergo worker`` find the stored mail when they next look at the inbox (they poll it).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from typing import Any, TextIO

from pbm_emergo.cli.settings import add_config_options, config_for
from pbm_emergo.config import Config
from pbm_emergo.telemetry.logs import FORMATS, JSONFormatter, NoMailContent

log = logging.getLogger(__name__)

HELP = "store one mail read from standard input (for an MTA's pipe or a .forward)"

# sysexits.h, as MTAs read a delivery command's exit status.
EX_OK = 0
EX_DATAERR = 65  # the mail itself cannot be taken: bounced
EX_UNAVAILABLE = 69  # we do not take this mail (recipient, size): bounced
EX_TEMPFAIL = 75  # not now: the MTA keeps the mail and tries again

LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("deliver", help=HELP, description=HELP)
    parser.add_argument("--sender",
                        help="the envelope sender, empty for a bounce (default: $SENDER, as "
                             "Postfix's local delivery and procmail set it)")
    parser.add_argument("--recipient", action="append",
                        help="an envelope recipient; more than one: repeat the option "
                             "(default: $RECIPIENT)")
    add_config_options(parser)
    parser.add_argument("--address", help="the server's own address (PBM_EMERGO_ADDRESS)")
    parser.add_argument("--max-message-size", dest="max_message_size", type=int,
                        help="bytes (PBM_EMERGO_MAX_MESSAGE_SIZE)")
    parser.add_argument("--log-level", dest="log_level", default="WARNING")
    parser.add_argument("--log-format", dest="log_format", choices=FORMATS,
                        help="text or json (PBM_EMERGO_LOG_FORMAT)")
    parser.set_defaults(func=run_deliver)


_OPTION_NAMES = ("address", "max_message_size", "log_format")


def run_deliver(args: argparse.Namespace) -> int:
    return deliver(args, sys.stdin.buffer, sys.stderr)


def deliver(args: argparse.Namespace, source: Any, errors: TextIO) -> int:
    """Store the mail read from ``source``; the exit status. On ``errors``, one line: on
    failure why, then what was logged; stored, what was logged, if anything."""
    logged = _LoggedLines()

    def fail(status: int, reason: str) -> int:
        _say(errors, [reason, *logged.lines])
        return status

    # Any problem of our own setup (a configuration, the database) defers the mail rather
    # than bouncing it: nothing is lost while the operator puts it right.
    try:
        config = config_for(args, _OPTION_NAMES)
    except Exception as exc:  # noqa: BLE001 - whatever it is, the MTA retries
        return fail(EX_TEMPFAIL, f"4.3.5 cannot read the configuration: {exc}")
    _setup_logging(getattr(logging, str(args.log_level).upper(), logging.WARNING),
                   config.log_format, logged)
    sender = args.sender if args.sender is not None else os.environ.get("SENDER")
    recipients = args.recipient or [r for r in [os.environ.get("RECIPIENT")] if r]
    if sender is None or not recipients:
        return fail(EX_TEMPFAIL, "4.3.5 no envelope sender or recipient: give --sender and "
                                 "--recipient (Postfix pipe: --sender=${sender} "
                                 "--recipient=${recipient})")
    raw = source.read(config.max_message_size + 1)
    if len(raw) > config.max_message_size:
        # What the listener answers to DATA over its size limit (aiosmtpd's check).
        return fail(EX_UNAVAILABLE, f"552 5.3.4 Message too big: this server takes mail of "
                                    f"at most {config.max_message_size} bytes")
    try:
        answer = asyncio.run(_as_listener(config, _as_received(raw), sender, recipients))
    except Exception as exc:  # noqa: BLE001 - the database or the schema: not now
        log.error("could not store mail from %r: %s", sender, exc)
        return fail(EX_TEMPFAIL, "451 4.3.0 Could not store the message, try again later")
    if answer.startswith("2"):
        if logged.lines:
            _say(errors, logged.lines)  # a duplicate, say: logged as the listener logs it
        return EX_OK
    if answer.startswith("4"):
        return fail(EX_TEMPFAIL, answer)
    # Something wrong with the mail or its sender's address (5.6.x content, 5.1.7 and
    # 5.1.3 a bad sender address) is bad data; anything else we do not take at all.
    enhanced = answer[4:9]
    bad_data = enhanced.startswith("5.6.") or enhanced in ("5.1.7", "5.1.3")
    return fail(EX_DATAERR if bad_data else EX_UNAVAILABLE, answer)


def _as_received(raw: bytes) -> bytes:
    """The mail as an SMTP client would have sent it: without the mbox ``From `` line that a
    local delivery puts first, and with CRLF line ends where it has bare LFs only (a pipe
    gets the MTA's local form; the listener stores the wire form)."""
    if raw.startswith(b"From "):
        raw = raw.partition(b"\n")[2]
    if b"\r\n" not in raw:
        raw = raw.replace(b"\n", b"\r\n")
    return raw


async def _as_listener(config: Config, raw: bytes, sender: str, recipients: list[str]) -> str:
    """The SMTP answer the listener gives this mail: its handler's hooks for MAIL FROM, each
    RCPT and DATA, in order, the first refusal ending it."""
    from aiosmtpd.smtp import Envelope

    from pbm_emergo.db.session import current_revision, get_engine, get_sessionmaker, head_revision
    from pbm_emergo.mail.inbound import InboxHandler

    current, head = current_revision(get_engine(config)), head_revision()
    if current != head:
        return (f"451 4.3.5 The database is at schema revision {current or '(empty)'}, not "
                f"{head}: the operator must run `pbm-emergo db upgrade`")
    handler = InboxHandler(get_sessionmaker(config), config)
    envelope = Envelope()
    # The MTA accepted the sender already: a non-ASCII one came with SMTPUTF8 or in a
    # UTF-8 mail system, and the listener then asks whether replies can reach it.
    envelope.smtp_utf8 = not sender.isascii()
    session: Any = None
    server: Any = None
    answer = await handler.handle_MAIL(server, session, envelope, sender, [])
    for recipient in recipients:
        if not answer.startswith("2"):
            break
        answer = await handler.handle_RCPT(server, session, envelope, recipient, [])
    if answer.startswith("2"):
        envelope.original_content = raw
        answer = await handler.handle_DATA(server, session, envelope)
    return answer


def _say(errors: TextIO, parts: list[str]) -> None:
    """Write ``parts`` on one line: an MTA takes a delivery command's output as the reason
    it puts in its bounce or its log, and a bounce shows it as one line."""
    text = " | ".join(" ".join(part.split()) for part in parts)
    errors.write(f"pbm-emergo deliver: {text}\n")
    errors.flush()


class _LoggedLines(logging.Handler):
    """Keeps the log records, each as one line, for the one line of output."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(self.format(record))
        except Exception:  # noqa: BLE001 - logging never fails the delivery
            self.handleError(record)


class _OneLineFormatter(logging.Formatter):
    """Each record on one line, an exception as its one-line summary (no traceback)."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info and record.exc_info[1] is not None:
            # Its message made first: the exception's text may hold a "%".
            record.msg = f"{record.getMessage()}: {record.exc_info[1]!r}"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return " ".join(self.inner.format(record).split())


def _setup_logging(level: int, log_format: str, handler: logging.Handler) -> None:
    # No time nor process: the MTA logs the line with its own.
    inner = JSONFormatter() if log_format == "json" else logging.Formatter(LOG_FORMAT)
    handler.setFormatter(_OneLineFormatter(inner))
    handler.addFilter(NoMailContent())  # the line goes into the MTA's log and bounces
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
