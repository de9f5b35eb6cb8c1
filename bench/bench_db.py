"""Database benchmark: moves, board reads and mail-queue throughput.

Usage:
    .venv/bin/python bench/bench_db.py                       # SQLite in a temporary folder
    .venv/bin/python bench/bench_db.py --url postgresql+psycopg://postgres@127.0.0.1:5432/bench

The PostgreSQL database must exist and be empty (it is migrated, then left with the data).
Prints one line per figure.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.orm import sessionmaker

from pbm_emergo.db import games as game_store
from pbm_emergo.db import inbox, players
from pbm_emergo.db.apply import apply
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.db.session import create_engine_for, upgrade_to_head
from pbm_emergo.game.play import Play, decide_move
from pbm_emergo.rules import Game

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="database URL (default: a new SQLite file)")
    parser.add_argument("--games", type=int, default=20, help="games to play move by move")
    parser.add_argument("--mails", type=int, default=2000, help="inbound mails to queue")
    parser.add_argument("--workers", type=int, default=4, help="threads claiming mail")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.url or f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        run(url, args.games, args.mails, args.workers)


def run(url: str, games: int, mails: int, workers: int) -> None:
    start = time.perf_counter()
    upgrade_to_head(url=url)
    print(f"backend: {url.split(':', 1)[0]}")
    print(f"migrate empty database to head: {time.perf_counter() - start:.2f} s")
    engine = create_engine_for(url)
    sessions = sessionmaker(engine, expire_on_commit=False)

    # Whole games, one transaction per move, as the mail workers do.
    with sessions.begin() as session:
        alice = players.create_player(session, "alice", "pw", [], NOW)
        bob = players.create_player(session, "bob", "pw", [], NOW)
    scripts = []
    for g in range(games):
        game = Game()
        while game.outcome() is None and len(game.moves) < 200:
            legal = game.position.legal_moves()
            game.play(legal[(g * 7 + len(game.moves)) % len(legal)])
        scripts.append([str(m) for m in game.moves])
    total_moves = sum(len(s) for s in scripts)
    start = time.perf_counter()
    for script in scripts:
        with sessions.begin() as session:
            board = game_store.create_board(session, session.merge(alice), session.merge(bob), NOW)
            number = board.number
        for move in script:
            with sessions.begin() as session:
                found = read_board(session, number)
                assert found is not None
                snapshot = found.snapshot
                state = snapshot.state
                assert state.to_move is not None
                mover = state.seat(state.to_move)
                request = Play.parse(number, mover.id, mover.userid, move)
                apply(session, decide_move(snapshot, request, NOW).changes)
    elapsed = time.perf_counter() - start
    print(
        f"a move (own transaction: snapshot, decide_move, db.apply): {total_moves} moves "
        f"in {elapsed:.2f} s = {total_moves / elapsed:.0f} moves/s, "
        f"{elapsed / total_moves * 1000:.2f} ms/move (games of {total_moves // games} moves avg)"
    )

    # Reading a board: cached position vs replay of the whole move list.
    reads = 200
    start = time.perf_counter()
    for i in range(reads):
        with sessions() as session:
            board = game_store.get_board(session, 101 + i % games)
            assert board is not None
            game_store.current_position(board)
    cached = (time.perf_counter() - start) / reads
    start = time.perf_counter()
    for i in range(reads):
        with sessions() as session:
            board = game_store.get_board(session, 101 + i % games)
            assert board is not None
            game_store.load_game(session, board)
    replay = (time.perf_counter() - start) / reads
    print(f"read a board: cached position {cached * 1000:.2f} ms, replay {replay * 1000:.2f} ms")

    # The inbox: store, then claim + mark done with several threads.
    raw = b"From: a@example.org\r\nSubject: emergo help\r\n\r\n" + b"x" * 2000
    start = time.perf_counter()
    for i in range(mails):
        with sessions.begin() as session:
            inbox.enqueue_inbound(session, raw, "a@example.org", ["p@x"], f"<{i}@x>", NOW)
    elapsed = time.perf_counter() - start
    print(f"enqueue_inbound (own transaction each): {mails / elapsed:.0f} mails/s")

    done = [0] * workers

    def work(index: int) -> None:
        name = f"bench-{index}"
        while True:
            with sessions.begin() as session:
                message = inbox.claim_inbound(session, worker=name, now=NOW)
            if message is None:
                return
            with sessions.begin() as session:
                session.add(message)
                inbox.mark_inbound_done(session, message, NOW)
            done[index] += 1

    start = time.perf_counter()
    threads = [threading.Thread(target=work, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    assert sum(done) == mails, done
    print(
        f"claim + mark done, {workers} threads: {mails / elapsed:.0f} mails/s "
        f"(per thread: {', '.join(map(str, done))})"
    )
    engine.dispose()


if __name__ == "__main__":
    main()
