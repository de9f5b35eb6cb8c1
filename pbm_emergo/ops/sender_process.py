"""The outbox sender's process of ``pbm-emergo serve`` and ``pbm-emergo worker`` (started by
:class:`pbm_emergo.ops.workers.WorkerPool`), in a module of its own: a process loads the
modules of the function it runs, and sending needs the outbox and the transport, not the
commands, the games or the rendering the inbox workers load (a contract of
``[tool.importlinter]`` keeps it so).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from pbm_emergo.config import Config
from pbm_emergo.db.session import get_sessionmaker
from pbm_emergo.mail.activity import Deference, ListenerActivity
from pbm_emergo.mail.outbound import OutboxSender, transport_for
from pbm_emergo.ops.processes import child_setup

log = logging.getLogger(__name__)


def run_sender_process(
    config: Config,
    inbox: Any,
    outbox: Any,
    stopping: Any,
    activity: ListenerActivity,
    poll_seconds: float,
    log_level: int,
    parent: int,
) -> None:
    """The body of the outbox sender's process: it sends what the workers queue, woken by
    their semaphore, so that the listener's process does nothing but accept mail."""
    terminated = child_setup(log_level, config.log_format, config.worker_nice)

    class Stop:
        """What OutboxSender checks between mails: the server stopping, or this process."""

        def is_set(self) -> bool:
            return bool(stopping.value) or terminated.is_set() or os.getppid() != parent

    stop = Stop()
    sender = OutboxSender(
        get_sessionmaker(config),
        transport_for(config.effective_outbound, config.domain,
                      password_file=config.outbound_password_file,
                      ca_file=config.outbound_ca_file),
        config.address,
    )
    listeners = Deference(activity, burst=config.listener_first_seconds)
    try:
        while not stop.is_set():
            listeners.wait(stop)
            try:
                if sender.run_once(stop):
                    continue
                pause = sender.seconds_until_due(poll_seconds)
            except Exception:  # noqa: BLE001
                log.exception("outbox sender error")
                pause = poll_seconds
            if outbox.acquire(timeout=pause):
                while outbox.acquire(block=False):
                    pass
    finally:
        sender.close()  # QUIT to the relay


__all__ = ["run_sender_process"]
