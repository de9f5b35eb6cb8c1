"""Survival under load, through the real listener, workers and sender: PostgreSQL restarted
in the middle of a run (`pg_ctl restart`), the relay down for a while, an inbox worker
process SIGKILLed while it holds a mail. Each time: every move applied exactly once and in
order, every reply sent exactly once, no error mail, nothing dead. (bench/pipeline.py does
the same at a larger scale with the figures: README, "Performance".)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db.models import InboundMessage, OutboundMessage
from pbm_emergo.db.session import create_engine_for, upgrade_to_head
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support.mail import SERVER_ADDRESS, Relay, free_port, listening, wait_for
from tests.support.postgres import ThrowawayCluster, postgres_bindir
from tests.support.waits import scaled

from . import games
from .support import clean_env

FAST = Backoff(base=timedelta(milliseconds=200), cap=timedelta(seconds=1))
STOPPED = "the worker stopped while processing this message"  # queues.release_stale_claims


def play_all(port: int, matches: list[games.Match], during: Callable[[], None],
             after_moves: int) -> None:
    """Every match's moves, concurrently (each in order); ``during`` runs once
    ``after_moves`` moves were accepted, while the others go on."""
    accepted = 0
    lock = threading.Lock()
    fired = threading.Event()

    def play(m: games.Match) -> None:
        nonlocal accepted
        for n in range(1, len(m.moves) + 1):
            games.deliver(port, *games.move_mail(m, n), timeout=180)
            with lock:
                accepted += 1
                fire = accepted == after_moves
            if fire:
                during()
                fired.set()

    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(play, matches))
    assert fired.is_set()


def check_exactly_once(sessions: sessionmaker[Session], matches: list[games.Match],
                       replies: list[tuple[str, str]]) -> None:
    """Every move once and in order; two board mails per move, nothing twice; all done."""
    applied = games.applied_moves(sessions)
    for m in matches:
        assert applied[m.board] == [(n, mv) for n, mv in enumerate(m.moves, start=1)]
    with sessions() as session:
        inbound = Counter(session.scalars(select(InboundMessage.status)))
        outbound = Counter(session.scalars(select(OutboundMessage.status)))
    assert set(inbound) == {"done"} and set(outbound) == {"sent"}, (inbound, outbound)
    assert not [s for _, s in replies if "error" in s.lower()]
    cause = games.caused_by(sessions)
    per_move = Counter(
        cause[mid] for mid, _ in replies if cause.get(mid, "").startswith("<move-")
    )
    assert len(per_move) == sum(len(m.moves) for m in matches)
    assert set(per_move.values()) == {2}, [k for k, v in per_move.items() if v != 2]


def relayed(relay: Relay) -> list[tuple[str, str]]:
    """(Message-ID, Subject) of every mail the relay got."""
    return [(str(m["Message-ID"]), str(m["Subject"])) for m in relay.handler.messages()]


def unsent(sessions: sessionmaker[Session]) -> int:
    with sessions() as session:
        return session.scalar(
            select(func.count()).select_from(OutboundMessage)
            .where(OutboundMessage.status != "sent")
        ) or 0


def play_through(
    config: Config, relay: Relay, matches: list[games.Match], interruption: Callable[[], None], *,
    after_moves: int, timeout: float,
) -> None:
    """Serve ``config`` (two worker threads), play ``matches`` by mail with
    ``interruption`` after ``after_moves`` moves, and check that every move was applied once
    and every reply relayed once; the server, its engine and ``relay`` are stopped after."""
    engine = create_engine_for(config.effective_database_url)
    sessions = sessionmaker(engine, expire_on_commit=False)
    server = MailServer(config, sessions, backoff=FAST, poll_seconds=0.2)
    server.start()
    try:
        games.set_up(config.smtp_port, sessions, matches)
        play_all(config.smtp_port, matches, interruption, after_moves=after_moves)
        games.wait_processed(sessions, timeout=timeout)
        wait_for(lambda: unsent(sessions) == 0, timeout=120, interval=0.3)
        check_exactly_once(sessions, matches, relayed(relay))
    finally:
        server.stop()
        engine.dispose()
        relay.stop()


@pytest.fixture
def own_postgres() -> Iterator[tuple[ThrowawayCluster, str]]:
    """A cluster of this test's own, for it is restarted under the server."""
    bindir = postgres_bindir()
    if bindir is None:
        if os.environ.get("CI") == "true":
            pytest.fail("PostgreSQL binaries (pg_ctl) are not installed")
        pytest.skip("PostgreSQL binaries (pg_ctl) are not installed")
    cluster = ThrowawayCluster(bindir)
    try:
        url = cluster.start()
        yield cluster, url
    finally:
        cluster.stop()


@pytest.mark.postgres
@pytest.mark.slow
def test_postgresql_restarted_mid_run_loses_and_repeats_nothing(
    own_postgres: tuple[ThrowawayCluster, str], quick_argon2: None
) -> None:
    cluster, url = own_postgres
    upgrade_to_head(url=url)
    relay = Relay()
    relay.start()
    config = Config(database_url=url, smtp_port=free_port(), address=SERVER_ADDRESS,
                    outbound=relay.url, workers=2, reply_limit=100_000)
    play_through(config, relay, games.plan(6, 10, seed=21), cluster.restart, after_moves=20,
                 timeout=180)


@pytest.mark.slow
def test_the_relay_down_for_a_while_loses_and_repeats_nothing(
    tmp_path: Path, quick_argon2: None
) -> None:
    relay = Relay()
    relay.start()
    config = Config(data_dir=tmp_path / "data", smtp_port=free_port(), address=SERVER_ADDRESS,
                    outbound=relay.url, workers=2, reply_limit=100_000)
    upgrade_to_head(config)

    def relay_down() -> None:
        relay.stop()
        time.sleep(3)
        relay.start()

    play_through(config, relay, games.plan(4, 10, seed=22), relay_down, after_moves=10,
                 timeout=120)


@pytest.mark.slow
def test_a_worker_process_killed_holding_a_mail_loses_and_repeats_nothing(
    tmp_path: Path,
) -> None:
    """`pbm-emergo serve` with two worker processes: the one holding a mail (its pid is in
    the claim) is SIGKILLed; serve starts it again and puts the mail back at once."""
    relay = Relay()
    relay.start()
    data_dir = tmp_path / "data"
    port = free_port()
    with (tmp_path / "serve.log").open("wb") as out:
        serve = subprocess.Popen(
            [sys.executable, "-m", "pbm_emergo", "serve", "--data-dir", str(data_dir),
             "--port", str(port), "--address", SERVER_ADDRESS, "--workers", "2",
             "--outbound", relay.url],
            stdout=out, stderr=subprocess.STDOUT, env=clean_env(),
        )  # fmt: skip
    config = Config(data_dir=data_dir)
    killed: list[int] = []
    try:
        wait_for(lambda: listening(port), timeout=60)  # migrated, then listening
        engine = create_engine_for(config.effective_database_url)
        sessions = sessionmaker(engine, expire_on_commit=False)

        def put_back() -> int:
            with sessions() as session:
                return session.scalar(select(func.count()).select_from(InboundMessage).where(
                    InboundMessage.last_error == STOPPED)) or 0

        def kill_the_worker_in_hand() -> None:
            """SIGKILL the worker whose pid is in a claim; again if it had let go of that
            mail just before (then no mail is put back), up to five times."""
            def claim() -> str | None:
                with sessions() as session:
                    return session.scalar(select(InboundMessage.claimed_by).where(
                        InboundMessage.status == "processing").limit(1))

            for _ in range(5):
                claimant = wait_for(claim, timeout=30, interval=0.005)
                pid = int(claimant.split(":")[1])
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                try:
                    wait_for(put_back, timeout=10, interval=0.1)
                    return
                except AssertionError:
                    continue

        try:
            wait_for(lambda: games.unfinished(sessions) == 0, timeout=60)
            matches = games.plan(4, 10, seed=23)
            time.sleep(1)  # listening
            games.set_up(port, sessions, matches)
            play_all(port, matches, kill_the_worker_in_hand, after_moves=8)
            games.wait_processed(sessions, timeout=120)
            wait_for(lambda: unsent(sessions) == 0, timeout=120, interval=0.3)
            check_exactly_once(sessions, matches, relayed(relay))
            with sessions() as session:
                retried = session.scalar(select(func.count()).select_from(InboundMessage)
                                         .where(InboundMessage.attempts == 2))
            held = put_back()
        finally:
            engine.dispose()
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(scaled(60))
        relay.stop()
    log = (tmp_path / "serve.log").read_text()
    assert killed and "starting it again" in log
    # The mail in hand was put back at once (not after the lease) and tried again.
    assert held == 1 and retried == 1
    assert serve.returncode == 0
