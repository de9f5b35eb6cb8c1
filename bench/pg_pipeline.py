"""What psycopg's pipeline mode would buy a warm move mail's write transaction on PostgreSQL.

A move mail's write transaction sends, one statement after the other, what
``bench/statements.py --database-url ... --show`` lists: the board's row updated where its
ply is still the one the move was decided at (the re-check: one row or a conflict), the move
inserted, the inbound mail marked done where this worker still holds its claim (the
re-check again), the recipients' mails of the last hour counted (the hourly cap), the
replies inserted (their ids returned) and their bytes inserted, then the commit. With
psycopg that is eight round trips, its ``BEGIN`` one of them.

This bench runs the same kinds of statement, on tables of the same shape and rows of the
same size (a board mail's 19,000 bytes), straight through psycopg, both ways, alternating:

- ``plain``: one round trip a statement, each result read before the next is sent (what
  SQLAlchemy does: it reads each statement's result, and our re-checks read row counts);
- ``pipeline``: the four statements up to the count sent in one go and their row counts
  checked after one sync; then the insert of the replies (whose ids the next statement
  needs), the insert of their bytes and the commit. Five round trips (psycopg syncs after
  its ``BEGIN``), where ``strace`` counts 85 reads from the socket for ten plain
  transactions and 50 for ten pipelined ones.

It prints, for each mode, the wall time a transaction and the CPU of this client process
and of its PostgreSQL backend process (read from ``/proc``: run it on the database's
machine). A round trip's cost here is the loopback's; over a network each saved round trip
saves its latency as well.

    python bench/pg_pipeline.py --database-url postgresql://postgres@127.0.0.1:55432/postgres

The tables it makes (``pipeline_bench_*``) are dropped at the end.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import psycopg

BOARDS = 100
MAIL_BYTES = 19_000  # a board mail with its HTML part
# The tables (boards, moves, inbound, outbound, texts), named apart from the server's.
TABLES = ("pipeline_bench_boards", "pipeline_bench_moves", "pipeline_bench_inbound",
          "pipeline_bench_outbound", "pipeline_bench_texts")


def create_tables(conn: psycopg.Connection, mails: int) -> None:
    b, m, i, o, t = TABLES
    drop_tables(conn)
    conn.execute(f"CREATE TABLE {b} (number int PRIMARY KEY, ply int NOT NULL, "
                 "position text NOT NULL, last_move_at timestamptz)")
    conn.execute(f"CREATE TABLE {m} (board int, number int, notation text, "
                 "played_at timestamptz, PRIMARY KEY (board, number))")
    conn.execute(f"CREATE TABLE {i} (id int PRIMARY KEY, status text, claimed_by text)")
    conn.execute(f"CREATE TABLE {o} (id serial PRIMARY KEY, recipient text, "
                 "created_at timestamptz, subject text)")
    conn.execute(f"CREATE INDEX ON {o} (recipient, created_at)")
    conn.execute(f"CREATE TABLE {t} (id int PRIMARY KEY, raw bytea)")
    conn.execute(f"INSERT INTO {b} SELECT g, 0, '', now() FROM generate_series(1, %s) g",
                 (BOARDS,))
    conn.execute(f"INSERT INTO {i} SELECT g, 'claimed', 'worker' "
                 "FROM generate_series(1, %s) g", (mails,))
    conn.commit()


def drop_tables(conn: psycopg.Connection) -> None:
    for table in TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.commit()


class MoveWrites:
    """The write transactions of successive move mails, each on the next board."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn
        self.mail = 0
        self.plies = [0] * (BOARDS + 1)
        self.raw = b"x" * MAIL_BYTES

    def _checked(self) -> tuple[psycopg.Cursor, psycopg.Cursor, psycopg.Cursor]:
        """The board, the move, the mail marked done, the hour's mails counted."""
        b, m, i, o, _ = TABLES
        self.mail += 1
        board = self.mail % BOARDS + 1
        ply = self.plies[board]
        self.plies[board] = ply + 1
        conn = self.conn
        board_row = conn.cursor()
        board_row.execute(
            f"UPDATE {b} SET ply = %s, position = %s, last_move_at = now() "
            "WHERE number = %s AND ply = %s", (ply + 1, "e" * 60, board, ply))
        conn.cursor().execute(f"INSERT INTO {m} VALUES (%s, %s, %s, now())",
                              (board, ply + 1, "e4xc4"))
        inbound = conn.cursor()
        inbound.execute(f"UPDATE {i} SET status = 'done', claimed_by = NULL "
                        "WHERE id = %s AND claimed_by = 'worker'", (self.mail,))
        counted = conn.cursor()
        counted.execute(
            f"SELECT recipient, count(*) FROM {o} WHERE recipient IN (%s, %s) "
            "AND created_at > now() - interval '1 hour' GROUP BY recipient",
            (f"white{self.mail}", f"black{self.mail}"))
        return board_row, inbound, counted

    def _queued(self) -> None:
        """The two replies and their bytes."""
        _, _, _, o, t = TABLES
        replies = self.conn.cursor()
        replies.execute(
            f"INSERT INTO {o} (recipient, created_at, subject) VALUES "
            "(%s, now(), 'Emergo board'), (%s, now(), 'Emergo board') RETURNING id",
            (f"white{self.mail}", f"black{self.mail}"))
        ids = [row[0] for row in replies.fetchall()]
        self.conn.cursor().executemany(f"INSERT INTO {t} VALUES (%s, %s)",
                                       [(id_, self.raw) for id_ in ids])

    def plain(self) -> None:
        board_row, inbound, counted = self._checked()
        if board_row.rowcount != 1 or inbound.rowcount != 1:
            raise RuntimeError("a re-check failed")
        counted.fetchall()
        self._queued()
        self.conn.commit()

    def pipeline(self) -> None:
        with self.conn.pipeline() as pipeline:
            board_row, inbound, counted = self._checked()
            pipeline.sync()
            if board_row.rowcount != 1 or inbound.rowcount != 1:
                raise RuntimeError("a re-check failed")
            counted.fetchall()
            self._queued()
            self.conn.commit()


def backend_cpu(pid: int) -> float:
    """CPU seconds (user + system) of the PostgreSQL backend process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(run: Callable[[], None], count: int, backend: int) -> tuple[float, float, float]:
    """Wall, client CPU and backend CPU, in ms a transaction, of ``count`` runs."""
    wall, cpu, server = time.perf_counter(), time.process_time(), backend_cpu(backend)
    for _ in range(count):
        run()
    return ((time.perf_counter() - wall) * 1e3 / count,
            (time.process_time() - cpu) * 1e3 / count,
            (backend_cpu(backend) - server) * 1e3 / count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True,
                        help="a libpq URL (postgresql://...) of a database to make tables in")
    parser.add_argument("--transactions", type=int, default=2000, help="per run")
    parser.add_argument("--rounds", type=int, default=4,
                        help="runs of each mode, alternating")
    args = parser.parse_args()
    url = args.database_url.replace("postgresql+psycopg://", "postgresql://")
    warmup = 100
    with psycopg.connect(url) as conn:
        if not Path(f"/proc/{conn.info.backend_pid}/stat").exists():
            raise SystemExit("run this on the database's machine: its backend's CPU is read "
                             "from /proc")
        create_tables(conn, (args.transactions + warmup) * args.rounds * 2 + 1)
        writes = MoveWrites(conn)
        modes = {"plain": writes.plain, "pipeline": writes.pipeline}
        print(f"machine: {os.cpu_count()} CPUs, Python {platform.python_version()}, "
              f"psycopg {psycopg.__version__}, PostgreSQL {conn.info.server_version}; "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        results: dict[str, list[tuple[float, float, float]]] = {mode: [] for mode in modes}
        try:
            for round_ in range(args.rounds):
                order = list(modes) if round_ % 2 == 0 else list(modes)[::-1]
                for mode in order:
                    for _ in range(warmup):
                        modes[mode]()
                    figures = measure(modes[mode], args.transactions, conn.info.backend_pid)
                    results[mode].append(figures)
                    print(f"  {mode:8s} wall {figures[0]:.3f} ms, client CPU "
                          f"{figures[1]:.3f} ms, backend CPU {figures[2]:.3f} ms a transaction")
        finally:
            drop_tables(conn)
    print("means over the runs (ms a transaction):")
    for mode, rows in results.items():
        wall, client, server = (statistics.fmean(column) for column in zip(*rows, strict=True))
        print(f"  {mode:8s} wall {wall:.3f}, client CPU {client:.3f}, backend CPU {server:.3f}")


if __name__ == "__main__":
    main()
