"""The outbox sender's own cost of one mail, in one process, without a relay.

Queues ``--mails`` replies, then lets :class:`OutboxSender` send them in its batches to a
transport that accepts every mail at once (no socket, no file): what is left is the
sender's claim, its read of the claimed mails and the record of their outcomes, in CPU
milliseconds and in function calls (Python and C, counted on every thread) a mail. It is
the figure to compare before and after a change to the sender or to the outbox's
statements; the relay's share is ``bench/pipeline.py``'s.

Usage:
    .venv/bin/python bench/sender.py                 # 2,000 mails
    .venv/bin/python bench/sender.py --mails 500 --calls
    .venv/bin/python bench/sender.py --mail-bytes 19000   # mails the size of a board mail
    .venv/bin/python bench/sender.py --database-url postgresql+psycopg://...  # an empty database

To measure another copy of the server, put it first on PYTHONPATH and run from outside the
checkout (for example ``cd /tmp && PYTHONPATH=/path/to/copy python /path/to/sender.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from statements import Calls  # bench/statements.py: run from bench/, as a script

import pbm_emergo
from pbm_emergo.config import Config
from pbm_emergo.db import outbox
from pbm_emergo.db.session import get_sessionmaker, upgrade_to_head
from pbm_emergo.mail.outbound import OutboxSender

HEADERS = (
    b"From: pbmserv@example.org\r\nTo: player@example.org\r\nSubject: Emergo Board 101\r\n\r\n"
)
LINE = b"a line of the board mail\r\n"


def mail_of(size: int) -> bytes:
    """A mail of about ``size`` bytes (a board mail with its HTML part is about 19,000)."""
    return HEADERS + LINE * max(1, (size - len(HEADERS)) // len(LINE))


class Accepting:
    """A transport that takes every mail and keeps nothing."""

    def __init__(self) -> None:
        self.delivered = 0

    def deliver(self, sender: str, recipient: str, raw: bytes) -> None:
        self.delivered += 1

    def close_if_idle(self, now: float) -> float | None:
        return None

    def close(self) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=2000)
    parser.add_argument("--calls", action="store_true", help="count function calls instead")
    parser.add_argument("--mail-bytes", type=int, default=1640,
                        help="the size of each mail (a board mail is about 19,000 bytes)")
    parser.add_argument(
        "--database-url", default=None,
        help="an empty database to use (PostgreSQL), migrated here; default SQLite",
    )
    args = parser.parse_args()
    print(f"server: {Path(pbm_emergo.__file__).parent}")
    with tempfile.TemporaryDirectory() as folder:
        config = Config(database_url=args.database_url or f"sqlite:///{folder}/bench.sqlite3")
        upgrade_to_head(config)
        sessions = get_sessionmaker(config)
        now = datetime(2026, 1, 1, tzinfo=UTC)
        raw = mail_of(args.mail_bytes)
        with sessions.begin() as session:
            for n in range(args.mails):
                outbox.enqueue_outbound(
                    session, f"player{n % 50}@example.org", raw, now,
                    message_id=f"<bench-{n}@example.org>",
                )
        transport = Accepting()
        sender = OutboxSender(sessions, transport, "pbmserv@example.org", clock=lambda: now)
        sender.run_once()  # warm: the statements compiled, the connections made
        done = transport.delivered
        counter = Calls() if args.calls else None
        started = time.process_time()
        with counter.on() if counter is not None else contextlib.nullcontext():
            while sender.run_once():
                pass
        seconds = time.process_time() - started
        sent = transport.delivered - done
    if sent != args.mails - done:
        raise SystemExit(f"sent {sent} of {args.mails - done}")
    if counter is not None:
        print(f"sender: {counter.count / sent:,.0f} function calls a mail ({sent} mails)")
    else:
        print(f"sender: {1000 * seconds / sent:.3f} ms CPU a mail ({sent} mails)")


if __name__ == "__main__":
    main()
