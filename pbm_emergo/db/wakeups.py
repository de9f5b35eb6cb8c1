"""Wake-ups across processes and machines on PostgreSQL (``LISTEN``/``NOTIFY``).

The listener notifies ``pbm_emergo_inbox`` in the transaction that stores mail; PostgreSQL
delivers the notification at commit to every session listening on the channel, on any
machine. Each ``pbm-emergo worker`` (and ``serve``) listens on one connection
(:func:`listen`) and wakes its inbox workers, so that they learn of new mail at once rather
than at their next look at the database. Replies need no such signal: the workers of one
server wake their own outbox sender. On SQLite there is nothing to listen to: the processes
of a server wake each other with semaphores, and other processes look.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator

from sqlalchemy import Connection, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)

INBOX = "pbm_emergo_inbox"
_NOTIFY_INBOX = text(f"NOTIFY {INBOX}")


def notify_inbox(session: Session | Connection) -> None:
    """Wake the inbox workers listening anywhere when this transaction commits (PostgreSQL
    only)."""
    bind = session.get_bind() if isinstance(session, Session) else session
    if bind.dialect.name == "postgresql":
        session.execute(_NOTIFY_INBOX)


def listens(database_url: str) -> bool:
    """Whether the database delivers notifications (PostgreSQL)."""
    return make_url(database_url).get_backend_name() == "postgresql"


def listen(
    database_url: str, channels: tuple[str, ...], *, timeout: float, stopped: Callable[[], bool]
) -> Iterator[str]:
    """The channels notified, as they are, until ``stopped()`` (asked every ``timeout``
    seconds). Every channel is given once as soon as it is listened to, also after a lost
    connection was opened again: what was notified before may have been missed."""
    import psycopg

    url = make_url(database_url).set(drivername="postgresql")
    conninfo = url.render_as_string(hide_password=False)
    while not stopped():
        try:
            with psycopg.connect(conninfo, autocommit=True) as connection:
                for channel in channels:
                    connection.execute(f"LISTEN {channel}")
                yield from channels
                while not stopped():
                    for note in connection.notifies(timeout=timeout, stop_after=1):
                        yield note.channel
        except psycopg.Error as error:
            log.warning("listening for wake-ups failed (%s); trying again", error)
            time.sleep(min(timeout, 5.0))


__all__ = ["INBOX", "listen", "listens", "notify_inbox"]
