"""The server's log format: ``text`` (the default: one line per record, the events' details
as ``key=value`` pairs that ``journalctl`` shows as they are and log shippers parse, as
logfmt) or ``json`` (one JSON object per line, the events' details as its keys).

An *event* (:func:`event`) is a record with a name and fields, such as the one line per
processed mail::

    ... INFO worker-1 MainThread pbm_emergo.mail.worker: mail id=12 sender=alice@example.org
        command="emergo move 101 ******** e4" result=done replies=2 ms=7.9

    {"time": "2026-11-23T15:14:54.123Z", "level": "INFO", "process": "worker-1", "logger":
     "pbm_emergo.mail.worker", "event": "mail", "id": 12, "sender": "alice@example.org",
     "command": "emergo move 101 ******** e4", "result": "done", "replies": 2, "ms": 7.9}

Every other record keeps its text (in JSON: under ``message``, with ``exc_info`` as
``traceback``).

Every process of the server (listeners, workers, the web view's uvicorn) logs through
:func:`setup_logging`, in one format. The libraries' own INFO lines (Alembic's plugins and
migration steps, aiosmtpd's every SMTP command, uvicorn's start and stop) show at DEBUG only:
at INFO, startup is the server's few lines (version, database, listening addresses, outbound,
web view).

No level writes a mail's content (:data:`CONTENT_LOGGERS`): below INFO aiosmtpd's ``mail.log``
logs every line of a mail's DATA (``DATA readline: b'Subject: signup alice PASSWORD'``), every
command line as read and the AUTH exchange, and SQLAlchemy's ``sqlalchemy.engine`` logs every
statement with its parameters (raw mail, password hashes) from INFO. Those loggers are kept at
their floor whatever the server's level, and the server's handler drops any record of theirs
below it (:class:`NoMailContent`), should something lower a logger's level again.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import Any

TEXT_FORMAT = "%(asctime)s %(levelname)s %(processName)s %(threadName)s %(name)s: %(message)s"
FORMATS = ("text", "json")
# Libraries logging details of their own at INFO (see the module docstring).
CHATTY_LOGGERS = ("alembic", "mail.log", "uvicorn")
# Library loggers that write a mail's content below a level: the level below which none of
# their records is ever written (see the module docstring).
CONTENT_LOGGERS = {"mail.log": logging.INFO, "sqlalchemy.engine": logging.WARNING}
_BARE = re.compile(r"[A-Za-z0-9_.@:/+\-]+")


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.1f}"
    text = "" if value is None else str(value)
    if _BARE.fullmatch(text):
        return text
    return json.dumps(text, ensure_ascii=False)


def key_values(fields: dict[str, Any]) -> str:
    """``key=value key="quoted value"`` (logfmt)."""
    return " ".join(f"{key}={_value(value)}" for key, value in fields.items())


def event(logger: logging.Logger, level: int, name: str, **fields: Any) -> None:
    """Log the event ``name`` with ``fields`` (see the module docstring)."""
    if logger.isEnabledFor(level):
        logger.log(
            level, "%s %s", name, key_values(fields),
            extra={"event": name, "fields": fields},
        )


class JSONFormatter(logging.Formatter):
    """One JSON object per record."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"
            ).replace("+00:00", "Z"),
            "level": record.levelname,
            "process": record.processName,
            "pid": record.process,
            "thread": record.threadName,
            "logger": record.name,
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            data["event"] = getattr(record, "event", None)
            data.update(fields)
        else:
            data["message"] = record.getMessage()
        if record.exc_info:
            data["traceback"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


class NoMailContent(logging.Filter):
    """Drops the records of :data:`CONTENT_LOGGERS` (and their children) below their floor."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, floor in CONTENT_LOGGERS.items():
            if record.name == name or record.name.startswith(name + "."):
                return record.levelno >= floor
        return True


def library_level(level: int) -> int:
    """The level of :data:`CHATTY_LOGGERS` when the server logs at ``level``: theirs from
    DEBUG down, else at least WARNING."""
    return level if level <= logging.DEBUG else max(level, logging.WARNING)


def setup_logging(level: int, log_format: str = "text") -> None:
    """A handler on the root logger writing to stderr in ``log_format`` (replacing the one an
    earlier call added; other handlers, such as a test's, are left alone), dropping a mail's
    content (:class:`NoMailContent`), and the chatty libraries' level (:func:`library_level`,
    never below the floor of :data:`CONTENT_LOGGERS`)."""
    if log_format not in FORMATS:
        raise ValueError(f"log_format must be one of {', '.join(FORMATS)}, not {log_format!r}")
    handler = logging.StreamHandler()
    json_lines = log_format == "json"
    handler.setFormatter(JSONFormatter() if json_lines else logging.Formatter(TEXT_FORMAT))
    handler.set_name("pbm-emergo")
    handler.addFilter(NoMailContent())
    root = logging.getLogger()
    for old in list(root.handlers):
        if old.get_name() == "pbm-emergo":
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(
            max(library_level(level), CONTENT_LOGGERS.get(name, logging.NOTSET))
        )
    for name, floor in CONTENT_LOGGERS.items():
        logger = logging.getLogger(name)
        logger.setLevel(max(logger.level, floor))


__all__ = [
    "CHATTY_LOGGERS",
    "CONTENT_LOGGERS",
    "FORMATS",
    "JSONFormatter",
    "NoMailContent",
    "TEXT_FORMAT",
    "event",
    "key_values",
    "library_level",
    "setup_logging",
]
