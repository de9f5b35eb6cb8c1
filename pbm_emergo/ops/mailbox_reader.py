"""The mailbox reader of ``serve`` with an inbox set (``PBM_EMERGO_INBOX``): a thread of the
main process that reads the mailbox over IMAP (:mod:`pbm_emergo.mail.imap`) in place of the
SMTP listener, or beside it (``PBM_EMERGO_INBOX_WITH_LISTENER=yes``). It stores the mail in
the durable inbox the workers read, as the listener does, and wakes them."""

from __future__ import annotations

import logging
import threading

from pbm_emergo.config import Config
from pbm_emergo.mail.imap import MailboxReader
from pbm_emergo.mail.inbound import InboxHandler

log = logging.getLogger(__name__)

STOP_SECONDS = 4.0  # the longest a shutdown waits for the mailbox reader


class MailboxThread:
    """Runs a :class:`MailboxReader` until stopped; the reader reconnects by itself."""

    def __init__(self, config: Config, handler: InboxHandler) -> None:
        self.handler = handler
        self.reader = MailboxReader(config, handler)
        self.stopping = threading.Event()
        self.ready = threading.Event()  # set at each login (tests wait for it)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="mailbox", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 60.0) -> None:
        """Stop reading within :data:`STOP_SECONDS`, whatever the reader is doing: the mail
        in hand is stored and moved if that takes less; then the connection is cut (a
        stored mail not yet moved is only moved after the next start). A reader still
        connecting is left behind (a daemon thread: it holds nothing)."""
        self.stopping.set()
        if self._thread is None:
            return
        grace = min(timeout, STOP_SECONDS)
        self._thread.join(grace * 0.8)
        if self._thread.is_alive():
            self.reader.interrupt()
            self._thread.join(grace * 0.2)
        if self._thread.is_alive():
            log.warning("the mailbox reader did not stop (connecting to the server): left "
                        "behind")

    def _run(self) -> None:
        try:
            self.reader.run(self.stopping, on_ready=self.ready.set)
        finally:
            self.reader.close()


def mailbox_thread(config: Config, handler: InboxHandler) -> MailboxThread | None:
    """The reader for ``config``'s inbox, None without one."""
    return MailboxThread(config, handler) if config.inbox else None


__all__ = ["MailboxThread", "mailbox_thread"]
