"""SQL statements and transactions of one warm move mail, counted.

In one process, on a fresh database (a temporary SQLite file, or the empty PostgreSQL
database of --database-url, migrated here): two players, a board opened by a challenge
mail, then --moves moves mailed alternately by the two players (legal moves from the rules
engine, each with the ``#n`` guard). Each mail goes the way the server takes it: the
listener's store (``InboxHandler.store``), then an inbox worker's ``run_once`` (claim, read,
decide, write, queue the replies). A SQLAlchemy ``before_cursor_execute`` listener counts
every statement sent to the database, and a ``begin`` listener every transaction, per phase
(and, on SQLite, its BEGIN statement, which the server runs on the driver's connection); on
PostgreSQL a unit of work whose statements are each their own transaction (autocommit: the
claim, a reading session) is counted apart, as it sends no BEGIN.

The first move of each player verifies their password with argon2id; later moves find it in
the credential cache (warm), as when players move again within seconds. The figures are for
the warm moves (each player's second and later).

    .venv/bin/python bench/statements.py [--moves 40] [--database-url URL] [--show]
        [--modules]

``--show`` prints the statements of the last warm move, one a line; ``--modules`` the
modules of ``pbm_emergo`` whose functions ran while the last warm move mail was stored and
processed (a profile hook on every thread); ``--calls`` the Python and C function calls
the worker makes for a warm move mail (a count of the interpreter's work that does not
depend on how busy the machine is, unlike its CPU time; it weighs every call alike). To
count another copy of the server, put it first on PYTHONPATH; the ``server:`` line says
which one ran.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import random
import shutil
import statistics
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import event

import pbm_emergo
from pbm_emergo.config import load_config
from pbm_emergo.db import players
from pbm_emergo.db.session import get_engine, get_sessionmaker, upgrade_to_head
from pbm_emergo.mail.inbound import InboxHandler
from pbm_emergo.mail.worker import InboxWorker, Outcome
from pbm_emergo.rules import Game

_T = TypeVar("_T")

SERVER = "pbmserv@bench.example"
PLAYERS = {"alice": "alice@bench.example", "bob": "bob@bench.example"}
PASSWORD = "bench-password-1"


class Counts:
    """Statements and transactions seen on the engine, by the phase set at the time."""

    def __init__(self) -> None:
        self.phase = "setup"
        self.statements: Counter[str] = Counter()
        self.transactions: Counter[str] = Counter()
        self.without: Counter[str] = Counter()  # units of work run without a transaction
        self.last: list[str] = []

    def on_statement(self, *args: Any) -> None:
        statement = args[2]
        if statement.startswith("BEGIN"):
            return  # counted by on_begin, whichever way the server ran it
        self.statements[self.phase] += 1
        self.last.append(" ".join(str(statement).split())[:160])

    def on_begin(self, connection: Any) -> None:
        if connection.get_execution_options().get("isolation_level") == "AUTOCOMMIT":
            # PostgreSQL's claims and reading sessions: each statement its own transaction,
            # no BEGIN sent.
            self.without[self.phase] += 1
            return
        self.transactions[self.phase] += 1
        if connection.dialect.name == "sqlite":
            # The server runs SQLite's BEGIN on the driver's connection (no cursor event):
            # it is counted as the statement it is.
            self.statements[self.phase] += 1
            self.last.append("BEGIN")

    @contextmanager
    def counting(self, phase: str) -> Iterator[None]:
        self.phase, self.last = phase, []
        try:
            yield
        finally:
            self.phase = "other"


class Calls:
    """Function calls (Python and C) counted on every thread while it is on."""

    def __init__(self) -> None:
        self.count = 0

    def hook(self, frame: Any, event: str, _: Any) -> None:
        if event in ("call", "c_call"):
            self.count += 1

    @contextmanager
    def on(self) -> Iterator[None]:
        sys.setprofile(self.hook)
        threading.setprofile(self.hook)
        try:
            yield
        finally:
            sys.setprofile(None)
            threading.setprofile(None)


class Modules:
    """The modules of ``pbm_emergo`` whose functions are called while it is on."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def hook(self, frame: Any, event: str, _: Any) -> None:
        if event == "call":
            module = frame.f_globals.get("__name__", "")
            if module.startswith("pbm_emergo"):
                self.seen.add(module)

    @contextmanager
    def on(self) -> Iterator[None]:
        sys.setprofile(self.hook)
        threading.setprofile(self.hook)  # the listener's store thread too
        try:
            yield
        finally:
            sys.setprofile(None)
            threading.setprofile(None)


def mail(sender: str, subject: str) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, SERVER, subject
    message["Message-ID"] = make_msgid(domain="bench.example")
    message.set_content("")
    return message.as_bytes(policy=policy.SMTP)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--modules", action="store_true")
    parser.add_argument("--calls", action="store_true")
    parser.add_argument(
        "--apart", action="store_true",
        help="each mail stored once the last was handled, the worker running until it finds "
        "none (a quiet server); default: a burst, the next mail stored before each is handled",
    )
    args = parser.parse_args()

    data = Path(tempfile.mkdtemp(prefix="pbm-emergo-statements-"))
    atexit.register(shutil.rmtree, data, ignore_errors=True)
    overrides: dict[str, Any] = {"data_dir": data, "address": SERVER}
    if args.database_url:
        overrides["database_url"] = args.database_url
    config = load_config(overrides=overrides, environ={})
    upgrade_to_head(config)
    players.use_password_settings(config)
    engine = get_engine(config)
    factory = get_sessionmaker(config)
    counts = Counts()
    modules = Modules()
    event.listen(engine, "before_cursor_execute", counts.on_statement)
    event.listen(engine, "begin", counts.on_begin)

    clock_now = [datetime(2026, 1, 5, 9, 0, tzinfo=UTC)]

    def clock() -> datetime:
        clock_now[0] += timedelta(seconds=5)  # mails minutes apart: no hourly cap met
        return clock_now[0]

    with factory.begin() as session:
        for userid, address in PLAYERS.items():
            players.create_player(session, userid, PASSWORD, [address], clock())
    handler = InboxHandler(factory, config, clock=clock)
    worker = InboxWorker(factory, config, clock=clock)

    calls: list[int] = []
    per_move: dict[str, list[int]] = {"store": [], "worker": []}
    transactions: dict[str, list[int]] = {"store": [], "worker": []}
    without: dict[str, list[int]] = {"store": [], "worker": []}

    def counted(part: str, phase: str, action: Callable[[], _T]) -> _T:
        """``action`` with its statements counted as ``part`` of a mail of ``phase``."""
        key = f"{phase} {part}"
        before = (counts.statements[key], counts.transactions[key], counts.without[key])
        with counts.counting(key):
            done = action()
        if phase == "warm":
            per_move[part].append(counts.statements[key] - before[0])
            transactions[part].append(counts.transactions[key] - before[1])
            without[part].append(counts.without[key] - before[2])
        return done

    def store(sender: str, subject: str, phase: str) -> None:
        counted("store", phase, lambda: handler.store(mail(sender, subject), sender, [SERVER]))

    def work(subject: str, phase: str, count_calls: bool) -> None:
        """The worker's part of a mail: one ``run_once`` in a burst (the mail was claimed
        by the last one's write transaction, which also claims the next); apart, until it
        finds no mail, as a worker that goes back to waiting does."""
        def run() -> Outcome | None:
            outcome = worker.run_once()
            if args.apart:
                while worker.run_once() is not None:
                    pass
            return outcome

        counter = Calls()
        with counter.on() if count_calls else contextlib.nullcontext():
            outcome = counted("worker", phase, run)
        if count_calls:
            calls.append(counter.count)
        if outcome is None or outcome.status != "done":
            raise SystemExit(f"{subject!r} was not done: {outcome}")

    challenge = (PLAYERS["alice"], "emergo challenge alice bob", "challenge")
    store(*challenge)
    work(challenge[1], "challenge", count_calls=False)

    # The game's mails, worked out first: legal moves from the rules engine, each player's
    # first move cold (its password checked against the hash), the later ones warm.
    game = Game()
    rng = random.Random(args.seed)
    moves: list[tuple[str, str, str]] = []
    userids = ("alice", "bob")
    while len(moves) < args.moves and game.outcome() is None:
        move = rng.choice(game.position.legal_moves())
        userid = userids[game.position.side_index]
        ply = game.position.ply + 1
        moves.append((PLAYERS[userid], f"emergo move 101 {userid} {PASSWORD} {move}#{ply}",
                      "warm" if ply > 2 else "cold"))
        game.play(move)

    # The last mail that has a next one is the one shown (in a burst its write claims that
    # next one): its worker's statements, and the modules of its store and its handling.
    shown = len(moves) - 2 if len(moves) > 1 else 0
    last_worker: list[str] = []
    if not args.apart:
        store(*moves[0])
    for index, (sender, subject, phase) in enumerate(moves):
        with modules.on() if args.modules and index == shown else contextlib.nullcontext():
            if args.apart:
                store(sender, subject, phase)
            elif index + 1 < len(moves):
                store(*moves[index + 1])
            # One profile hook at a time: the mail whose modules are listed is not counted.
            work(subject, phase,
                 count_calls=args.calls and phase == "warm"
                 and not (args.modules and index == shown))
            if index == shown:
                last_worker = list(counts.last)

    print(f"server: {Path(pbm_emergo.__file__).resolve().parent}")
    print(f"database: {engine.dialect.name}; warm moves counted: {len(per_move['worker'])}")
    for part in ("store", "worker"):
        s, t, w = per_move[part], transactions[part], without[part]
        if not s:
            continue
        print(
            f"  {part:<7} statements a move: mean {statistics.mean(s):.2f} "
            f"(min {min(s)}, max {max(s)}); transactions a move: mean {statistics.mean(t):.2f}"
            + (f", and {statistics.mean(w):.2f} units of statements each its own "
               "transaction (autocommit)" if any(w) else "")
        )
    total = [a + b for a, b in zip(per_move["store"], per_move["worker"], strict=True)]
    if total:
        print(f"  total   statements a warm move mail: mean {statistics.mean(total):.2f}")
    if calls:
        print(f"  worker  function calls a warm move mail: mean {statistics.mean(calls):,.0f}")
    if args.modules:
        packages = {m.split(".")[1] for m in modules.seen if m.count(".")}
        print(f"modules run by the last move mail: {len(modules.seen)} in {len(packages)} "
              "packages")
        for module in sorted(modules.seen):
            print("   ", module)
    if args.show:
        print("statements of the last warm move's worker:")
        for line in last_worker:
            print("   ", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
