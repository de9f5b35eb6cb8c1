"""PostgreSQL for the tests: a throwaway cluster of the installed binaries in a temporary
folder on a free loopback port, and databases created and dropped on a server."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.engine import make_url

from tests.support.mail import free_port


def postgres_bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _in_memory() -> Path | None:
    """/dev/shm where it is a tmpfs with room for a cluster (a container's is often 64 MiB):
    on a disk's filesystem, the kernel's inode allocation for the files of a database created
    and dropped for each test costs three quarters as much CPU again as the server's own
    work. Else None (then TMPDIR)."""
    memory = Path("/dev/shm")
    try:
        room = shutil.disk_usage(memory).free
    except OSError:
        return None
    return memory if room >= 1 << 30 and os.access(memory, os.W_OK | os.X_OK) else None


class ThrowawayCluster:
    """A PostgreSQL cluster in a temporary folder on a free loopback port."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.folder = Path(tempfile.mkdtemp(prefix="pbm-emergo-pg-", dir=_in_memory()))
        self.data = self.folder / "data"
        self.port = free_port()
        # initdb refuses to run as root: run the server as the postgres user then.
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, user="postgres")
            self.prefix = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        subprocess.run([*self.prefix, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> str:
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.data),
            "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options,
            "-l", str(self.folder / "server.log"), "-w", "-t", "60", "start",
        )  # fmt: skip
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def restart(self) -> None:
        """A clean restart (``-m fast``), as an operator's, under whatever is connected (the
        server's output still to its log: a pipe it held would keep this call waiting)."""
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data),
            "-l", str(self.folder / "server.log"), "-m", "fast", "-w", "-t", "60", "restart",
        )  # fmt: skip

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


class PostgresDatabases:
    """Creates and drops databases on one server."""

    def __init__(self, server_url: str) -> None:
        self.server_url = make_url(server_url)
        self.admin: Engine = create_engine(self.server_url, isolation_level="AUTOCOMMIT")
        self.template: str | None = None
        self._strategy: bool | None = None

    def url(self, name: str) -> str:
        return self.server_url.set(database=name).render_as_string(hide_password=False)

    def create(self, template: str | None = None, name: str | None = None) -> str:
        name = name or f"pbm_test_{uuid.uuid4().hex[:12]}"
        clause = f" TEMPLATE {template}" if template else ""
        with self.admin.connect() as conn:
            if template and self._copies_files(conn):
                # The template's files copied as they are: WAL_LOG, the default since
                # PostgreSQL 15, writes every page of a database this small to the WAL too.
                clause += " STRATEGY FILE_COPY"
            conn.execute(text(f"CREATE DATABASE {name}{clause}"))
        return name

    def _copies_files(self, conn: Connection) -> bool:
        """Whether the server takes CREATE DATABASE's STRATEGY (PostgreSQL 15 and later)."""
        if self._strategy is None:
            version = conn.execute(text("SHOW server_version_num")).scalar_one()
            self._strategy = int(version) >= 150000
        return self._strategy

    def drop(self, name: str) -> None:
        with self.admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
