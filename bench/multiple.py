"""What a ``multiple`` mail costs the worker, and how long it holds the write lock.

Each of ``--games`` games' first player sends one ``multiple`` mail of ``--lines`` lines:
the first move, then the board shown, its legal moves and its record, over and over (each
answer a rendered board or list). The worker's side is timed as ``bench/mail_path.py``
times it (wall and CPU milliseconds a mail), and every write transaction the engine begins
meanwhile is timed from its ``BEGIN`` to its end: how many a mail, and the longest, which
is how long other mails' writes may have to wait behind one.

Usage:
    .venv/bin/python bench/multiple.py                  # 20 mails of 10 lines
    .venv/bin/python bench/multiple.py --lines 30
    .venv/bin/python bench/multiple.py --profile    # pyinstrument of the worker side

To measure another copy of the server, put it first on PYTHONPATH and run from outside the
checkout (``cd /tmp && PYTHONPATH=/path/to/copy python /path/to/multiple.py``).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from mail_path import (  # bench/: the script's folder
    boards_by_white,
    codes_in_outbox,
    command_mail,
    timed,
)
from sqlalchemy import Connection, event

from pbm_emergo.config import Config
from pbm_emergo.db.session import READ_ONLY, get_sessionmaker, upgrade_to_head
from pbm_emergo.mail.inbound import InboxHandler
from pbm_emergo.mail.worker import InboxWorker
from pbm_emergo.rules import Game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--lines", type=int, default=10)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        run(Path(folder), args.games, args.lines, args.profile)


def run(folder: Path, games: int, lines: int, profile: bool = False) -> None:
    config = Config(data_dir=folder, address="pbmserv@emergo.test")
    upgrade_to_head(config)
    factory = get_sessionmaker(config)
    handler = InboxHandler(factory, config)
    worker = InboxWorker(factory, config)
    count = 0

    def store(sender: str, subject: str, body: str = "Good luck!\n") -> None:
        nonlocal count
        count += 1
        raw = command_mail(config.address, sender, subject, count, body)
        handler.store(raw, sender, [config.address])

    def drain() -> None:
        while worker.run_once() is not None:
            pass

    for g in range(games):
        for side in ("white", "black"):
            store(f"{side}{g}@bench.test", f"signup {side}{g} pw-{side}{g}-x")
    drain()
    for sender, code in codes_in_outbox(factory).items():
        store(sender, f"confirm {code}")
    for g in range(games):
        store(f"white{g}@bench.test", f"emergo challenge white{g} black{g}")
    drain()
    boards = boards_by_white(factory)
    first = Game().position.legal_moves()[0]
    for g in range(games):
        board = boards[f"white{g}"]
        asks = [f"emergo show {board}", f"emergo moves {board}", f"emergo record {board}"]
        body = [f"emergo move {board} white{g} pw-white{g}-x {first}#1"]
        body += [asks[n % len(asks)] for n in range(lines - 1)]
        store(f"white{g}@bench.test", "multiple", "\n".join(body) + "\n")

    held: list[float] = []
    began: dict[int, float] = {}

    def begin(conn: Connection) -> None:
        if not conn.get_execution_options().get(READ_ONLY):
            began[id(conn)] = time.perf_counter()

    def end(conn: Connection) -> None:
        start = began.pop(id(conn), None)
        if start is not None:
            held.append(time.perf_counter() - start)

    engine = factory.kw["bind"]
    event.listen(engine, "begin", begin)
    event.listen(engine, "commit", end)
    event.listen(engine, "rollback", end)
    wall, cpu = timed(drain, profile)
    print(f"{games} multiple mails of {lines} lines")
    print(f"worker: {wall / games * 1000:.1f} ms wall, {cpu / games * 1000:.1f} ms CPU a mail")
    print(f"write transactions: {len(held) / games:.1f} a mail, "
          f"longest {max(held) * 1000:.2f} ms, "
          f"{sum(held) / games * 1000:.2f} ms a mail in all")


if __name__ == "__main__":
    main()
