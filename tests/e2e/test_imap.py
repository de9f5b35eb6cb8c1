"""Mail read from a mailbox: a whole game played through ``pbm-emergo serve`` (a real
subprocess) reading a real Dovecot's mailbox over IMAP with TLS, every command a mail put in
the mailbox, the replies to a recording relay; and the mailbox's password in no log, no
command line of the server's processes and no database row.

Needs the Debian package dovecot-imapd (.ci/run installs it); elsewhere skipped with the
reason, except under CI=true, where it fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from types import SimpleNamespace

import pytest

import tests.support.post
from pbm_emergo.db.session import dispose_engines, get_sessionmaker
from tests.support import dovecot
from tests.support.mail import Relay, listening, make_config, wait_for
from tests.support.post import Post, play_a_short_game
from tests.support.waits import scaled


@pytest.fixture
def imap_serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Post]:
    """``pbm-emergo serve`` with ``PBM_EMERGO_INBOX=imaps://...``, its own SQLite, replies
    to a recording relay; its Post puts every command in the Dovecot mailbox."""
    reason = dovecot.unavailable_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true: not skipping)")
        pytest.skip(reason)
    imap = dovecot.Dovecot()
    relay = Relay()
    relay.start()
    config = make_config(tmp_path, outbound=relay.url, reply_limit=100_000)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
    env.update({
        "PYTHONUNBUFFERED": "1",
        "PBM_EMERGO_INBOX": imap.url(),
        "PBM_EMERGO_INBOX_PASSWORD_FILE": str(imap.password_file),
        "PBM_EMERGO_INBOX_CA_FILE": str(imap.ca_file),
    })
    log_path = tmp_path / "serve.log"
    process = None
    try:
        imap.start()
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "pbm_emergo", "serve", "--workers", "1", "--data-dir",
                 str(config.data_dir), "--address", config.address, "--outbound", relay.url,
                 "--reply-limit", "100000", "--log-level", "DEBUG"],
                stdout=log, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip

        def append(port: int, msg: EmailMessage, envelope_sender: str | None = None) -> None:
            imap.append(msg)

        monkeypatch.setattr(tests.support.post, "send", append)
        wait_for(lambda: f"reading {imap.url()} (IDLE)" in log_path.read_text(),
                 timeout=120, interval=0.2)
        server = SimpleNamespace(config=config, process=process, imap=imap, log=log_path)
        yield Post(server, relay, get_sessionmaker(config))  # type: ignore[arg-type]
    finally:
        if process is not None:
            process.send_signal(signal.SIGTERM)
            code = process.wait(scaled(90))
            assert code == 0, log_path.read_text()
        relay.stop()
        dispose_engines()
        imap.remove()


@pytest.mark.slow
def test_a_whole_game_by_imap_through_serve_inbox(imap_serve: Post) -> None:
    post = imap_serve
    play_a_short_game(post)
    # The mailbox reader took the SMTP listener's place.
    assert not listening(post.server.config.smtp_port)
    assert "listening on" not in post.server.log.read_text()  # type: ignore[attr-defined]
    imap = post.server.imap  # type: ignore[attr-defined]
    # Every mail left the watched folder once stored: 2 signups, 2 confirms, the challenge,
    # 8 moves and the resignation.
    wait_for(lambda: imap.count("pbm-emergo.processed") == 14, timeout=20)
    assert imap.count("INBOX") == 0

    # The mailbox's password: in no log, no command line, no database row.
    password = dovecot.PASSWORD
    process = post.server.process  # type: ignore[attr-defined]
    commands = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True,
                              text=True, check=True).stdout
    assert str(process.pid) in commands and password not in commands
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            assert password.encode() not in cmdline
    assert password not in post.server.log.read_text()  # type: ignore[attr-defined]
    database = post.server.config.effective_database_url.removeprefix("sqlite:///")
    for path in Path(database).parent.iterdir():
        if path.name.startswith(Path(database).name):  # the database, its -wal and -shm
            assert password.encode() not in path.read_bytes()
