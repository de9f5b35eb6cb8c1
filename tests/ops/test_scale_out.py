"""Several worker processes on one database (PostgreSQL, and SQLite): the real listener
(`pbm-emergo serve --no-workers`) and two `pbm-emergo worker` processes of two inbox workers
each, many boards, their moves sent concurrently (each board's in order, the next as soon as
the last was accepted, with the `#n` guard). Every move is applied exactly once and in
order, every mail is done, every reply sent once, no error mail (a guard that fired would
send one). And a worker process stopped in the middle of a burst leaves no mail in its hands."""

from __future__ import annotations

import mailbox
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import InboundMessage, OutboundMessage
from pbm_emergo.db.session import create_engine_for
from tests.support.mail import SERVER_ADDRESS, command_mail, free_port, send, wait_for
from tests.support.waits import scaled

from . import games
from .support import clean_env, scrape

BOARDS = 12
MOVES = 8


class Cluster:
    """`serve --no-workers` and ``workers`` `pbm-emergo worker` processes on one database."""

    def __init__(self, tmp_path: Path, database_url: str) -> None:
        self.tmp = tmp_path
        self.data_dir = tmp_path / "data"
        self.database_url = database_url
        self.port = free_port()
        self.processes: list[subprocess.Popen[bytes]] = []
        self.metrics_port = 0

    def _start(self, *args: str, log: str) -> subprocess.Popen[bytes]:
        with (self.tmp / log).open("ab") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "pbm_emergo", *args, "--data-dir", str(self.data_dir),
                 "--database-url", self.database_url, "--address", SERVER_ADDRESS],
                stdout=out, stderr=subprocess.STDOUT, env=clean_env(),
            )  # fmt: skip
        self.processes.append(process)
        return process

    def start(self, workers: int, inbox_each: int, metrics_port: int = 0) -> None:
        """``metrics_port``: the first worker serves its metrics there."""
        serve = self._start("serve", "--no-workers", "--port", str(self.port), log="serve.log")
        wait_for(lambda: _listening(self.port) or serve.poll() is not None, timeout=60)
        assert serve.poll() is None, (self.tmp / "serve.log").read_text()
        for n in range(workers):
            extra = ["--metrics-port", str(metrics_port)] if metrics_port and n == 0 else []
            self._start("worker", "--workers", str(inbox_each), *extra,
                        log=f"worker-{n + 1}.log")

    def stop(self) -> list[int | None]:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        codes = []
        for process in self.processes:
            try:
                codes.append(process.wait(scaled(60)))
            except subprocess.TimeoutExpired:
                process.kill()
                codes.append(None)
        return codes

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.tmp.glob("*.log")))


def _listening(port: int) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture
def cluster(tmp_path: Path, database_url: str) -> Iterator[Cluster]:
    running = Cluster(tmp_path, database_url)
    try:
        yield running
    finally:
        running.stop()


def replies(maildir: Path) -> list[tuple[str, str, str]]:
    """(Message-ID, To, Subject) of every mail in the outbox maildir."""
    if not maildir.exists():
        return []
    box = mailbox.Maildir(maildir, create=False)
    parser = BytesParser(policy=policy.default)
    found = []
    for key in box.iterkeys():
        msg = parser.parsebytes(box.get_bytes(key), headersonly=True)
        found.append((str(msg["Message-ID"]), str(msg["To"]), str(msg["Subject"])))
    return found


@pytest.mark.slow
def test_many_boards_concurrent_moves_several_worker_processes(
    cluster: Cluster, database_url: str
) -> None:
    cluster.metrics_port = free_port()
    cluster.start(workers=2, inbox_each=2, metrics_port=cluster.metrics_port)
    engine = create_engine_for(database_url)
    sessions = sessionmaker(engine, expire_on_commit=False)
    try:
        _check(cluster, sessions)
    finally:
        engine.dispose()


def _logged_done(cluster: Cluster) -> int:
    """The mails the workers have logged as done (``serve --no-workers`` handles none)."""
    return sum(
        log.read_text(errors="replace").count(" result=done ")
        for log in cluster.tmp.glob("worker-*.log")
    )


def _done(sessions: sessionmaker[Session]) -> int:
    with sessions() as session:
        return int(session.scalar(
            select(func.count()).select_from(InboundMessage)
            .where(InboundMessage.status == "done")
        ) or 0)  # fmt: skip


def _check(cluster: Cluster, sessions: sessionmaker[Session]) -> None:
    matches = games.plan(BOARDS, MOVES, seed=10)
    try:
        _run(cluster, sessions, matches)
        wait_for(lambda: _unsent(sessions) == 0, timeout=120, interval=0.3)
        # A worker counts and logs a mail just after the commit that marks it done, which
        # may come after its replies were sent on a busy machine: scrape once every mail
        # done is logged (its metrics are counted before its log line).
        wait_for(lambda: _logged_done(cluster) == _done(sessions), timeout=60, interval=0.3)
        samples = scrape(cluster.metrics_port)
    finally:
        codes = cluster.stop()
    with sessions() as session:
        inbound = Counter(session.scalars(select(InboundMessage.status)))
        outbound = Counter(session.scalars(select(OutboundMessage.status)))
        retried = session.scalar(
            select(func.count()).select_from(InboundMessage).where(InboundMessage.attempts > 1)
        )
    mails = replies(cluster.data_dir / "outbox-maildir")
    logs = cluster.logs()
    assert codes == [0, 0, 0], logs[-3000:]
    sent = sum(len(m.moves) for m in matches)
    # Two signups and their two confirms per board, a challenge, the moves.
    assert inbound == {"done": 4 * BOARDS + BOARDS + sent}, inbound
    assert set(outbound) == {"sent"}
    # Every move applied once, in order, on every board.
    applied = games.applied_moves(sessions)
    for m in matches:
        assert applied[m.board] == [(n, mv) for n, mv in enumerate(m.moves, start=1)]
    assert games.board_plies(sessions) == {m.board: len(m.moves) for m in matches}
    # Every reply sent once: two board mails per move (one to each player), none twice.
    assert not [s for _, _, s in mails if "error" in s.lower()]
    cause = games.caused_by(sessions)
    per_move = Counter(
        cause[mid] for mid, _, _ in mails if cause.get(mid, "").startswith("<move-")
    )
    assert len(per_move) == sent and set(per_move.values()) == {2}
    assert max(Counter(mails).values()) == 1
    # The work was shared: mail handled in both worker invocations' processes.
    handled = [log.name for log in sorted(cluster.tmp.glob("worker-*.log"))
               if " result=done " in log.read_text(errors="replace")]
    assert handled == ["worker-1.log", "worker-2.log"]
    # The first worker's metrics (the sum of its processes) agree with its log.
    first = (cluster.tmp / "worker-1.log").read_text(errors="replace").count(" result=done ")
    counted = sum(v for (name, labels), v in samples.items()
                  if name == "pbm_emergo_mails_processed_total" and ("result", "done") in labels)
    assert counted == first > 0
    assert retried == 0  # no mail needed a second attempt


def _unsent(sessions: sessionmaker[Session]) -> int:
    with sessions() as session:
        return session.scalar(
            select(func.count()).select_from(OutboundMessage)
            .where(OutboundMessage.status != "sent")
        ) or 0


def _run(cluster: Cluster, sessions: sessionmaker[Session], matches: list[games.Match]) -> None:
    games.set_up(cluster.port, sessions, matches)

    def play(m: games.Match) -> None:
        for n in range(1, len(m.moves) + 1):
            games.deliver(cluster.port, *games.move_mail(m, n))

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(play, matches))
    games.wait_processed(sessions, timeout=180)


def test_a_worker_process_stopped_in_a_burst_leaves_no_mail_in_its_hands(
    cluster: Cluster, database_url: str
) -> None:
    """In a burst each mail's write transaction claims the worker's next mail: SIGTERM
    in the middle of one leaves every mail done or waiting, none claimed by the stopped
    process (the mail claimed ahead is handled before it exits)."""
    cluster.start(workers=1, inbox_each=1)
    engine = create_engine_for(database_url)
    sessions = sessionmaker(engine, expire_on_commit=False)
    try:
        for n in range(200):
            send(cluster.port, command_mail("help", sender=f"p{n}@example.org",
                                            message_id=f"<burst{n}@example.org>"))
        wait_for(lambda: _done(sessions) >= 1, timeout=60)
        worker = cluster.processes[1]
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(scaled(60)) == 0, cluster.logs()[-3000:]
        with sessions() as session:
            statuses = Counter(session.scalars(select(InboundMessage.status)))
    finally:
        engine.dispose()
    assert set(statuses) <= {"done", "pending"}, statuses
    # Stopped in the middle of the burst, not after it.
    assert statuses["done"] >= 1 and statuses["pending"] >= 1, statuses
