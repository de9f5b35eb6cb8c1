"""The outbox sender's process of ``pbm-emergo serve`` and ``pbm-emergo worker`` (started by
:class:`pbm_emergo.ops.workers.WorkerPool`), in a module of its own: sending needs the
outbox and the transport, not the commands, the games or the rendering the inbox workers
use (a contract of ``[tool.importlinter]`` keeps it so).
"""

from __future__ import annotations

import logging

from pbm_emergo.db.session import get_sessionmaker
from pbm_emergo.mail.activity import Deference
from pbm_emergo.mail.outbound import OutboxSender, transport_for
from pbm_emergo.ops.processes import PoolProcessArgs, child_setup, parent_watch

log = logging.getLogger(__name__)


def run_sender_process(args: PoolProcessArgs) -> None:
    """The body of the outbox sender's process: it sends what the workers queue, woken by
    their semaphore, so that the listener's process does nothing but accept mail."""
    config = args.config
    terminated = child_setup(args.log_level, config.log_format, config.worker_nice)
    parent_gone = parent_watch()

    class Stop:
        """What OutboxSender checks between mails: the server stopping, or this process."""

        def is_set(self) -> bool:
            return (bool(args.stopping.value) or terminated.is_set()
                    or parent_gone())

    stop = Stop()
    sender = OutboxSender(
        get_sessionmaker(config),
        transport_for(config.effective_outbound, config.domain,
                      password_file=config.outbound_password_file,
                      ca_file=config.outbound_ca_file),
        config.address,
    )
    listeners = Deference(args.activity, burst=config.listener_first_seconds)
    try:
        while not stop.is_set():
            listeners.wait(stop)
            try:
                if sender.run_once(stop):
                    continue
                pause = sender.seconds_until_due(args.poll_seconds)
            except Exception:  # noqa: BLE001
                log.exception("outbox sender error")
                pause = args.poll_seconds
            if args.outbox.acquire(timeout=pause):
                while args.outbox.acquire(block=False):
                    pass
    finally:
        sender.close()  # QUIT to the relay


__all__ = ["run_sender_process"]
