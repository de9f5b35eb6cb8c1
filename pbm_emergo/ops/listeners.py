"""More processes accepting mail on the main listener's socket (``serve --listeners``,
:class:`ListenerProcesses`), and the body each of them runs. Each speaks what the main
listener speaks (SMTP, or LMTP with ``serve --lmtp``): it builds its listener from the same
Config."""

from __future__ import annotations

import logging
import socket
from typing import Any

from pbm_emergo.config import Config
from pbm_emergo.db.session import get_sessionmaker
from pbm_emergo.mail.activity import ListenerActivity
from pbm_emergo.mail.inbound import InboxHandler, Listener
from pbm_emergo.ops.processes import HELPERS, child_setup, join_all, parent_watch, restart_dead

log = logging.getLogger(__name__)


class ListenerProcesses:
    """``count`` processes besides the main one, each accepting mail on the main listener's
    socket with a listener of its own (the kernel hands each new connection to one of the
    processes waiting on the socket). Parsing and storing mail is Python work, one core's
    worth per process; under a burst these use the other cores. The socket is bound once,
    by the main process: a second server on the same port still fails to start.

    A process stops when told to (after answering the mail it is storing), when its parent
    is gone, and is started again if it dies."""

    def __init__(
        self, config: Config, count: int, inbox: Any, activity: ListenerActivity | None
    ) -> None:
        self.config = config
        self.count = count
        self.inbox = inbox  # the workers' semaphore, released for each stored mail
        self.activity = activity
        self.context = HELPERS
        self.stopping = self.context.RawValue("b", 0)
        self.sockets: list[socket.socket] = []
        self.processes: list[Any] = []

    def start(self, sockets: list[socket.socket]) -> None:
        if len(sockets) != 1:
            # A host name with several addresses: one listener (the main one) for all.
            log.warning("listening on %d sockets: one listener process only", len(sockets))
            for sock in sockets:
                sock.close()
            return
        self.sockets = sockets
        self.processes = [self._spawn(n) for n in range(self.count)]

    def _spawn(self, n: int) -> Any:
        process = self.context.Process(
            target=run_listener_process,
            name=f"listener-{n + 2}",
            args=(self.config, self.sockets[0], self.inbox, self.activity, self.stopping,
                  logging.getLogger().level),
            daemon=True,
        )
        process.start()
        return process

    def restart_dead(self) -> int:
        return 0 if self.stopping.value else restart_dead(self.processes, self._spawn)

    def stop_accepting(self) -> None:
        """Tell every process to stop (each answers the mail it is storing first)."""
        self.stopping.value = 1

    def stop(self, timeout: float) -> None:
        self.stop_accepting()
        join_all(self.processes, timeout)
        for sock in self.sockets:
            sock.close()
        self.sockets = []


def run_listener_process(
    config: Config,
    sock: socket.socket,
    inbox: Any,
    activity: ListenerActivity | None,
    stopping: Any,
    log_level: int,
) -> None:
    """The body of a listener process (see :class:`ListenerProcesses`): the listener keeps
    the main process's priority."""
    terminated = child_setup(log_level, config.log_format)
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd: every command
    handler = InboxHandler(get_sessionmaker(config), config,
                           on_stored=inbox.release if inbox is not None else None)
    listener = Listener(handler, config, sock=sock, activity=activity)
    listener.start()
    parent_gone = parent_watch()
    try:
        while not (stopping.value or terminated.is_set()):
            if parent_gone():
                log.error("the main process is gone; this listener stops")
                break
            terminated.wait(0.2)
    finally:
        listener.stop()

__all__ = ["ListenerProcesses", "run_listener_process"]
