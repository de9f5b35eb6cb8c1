"""``pbm-emergo deliver``: one mail from standard input into the durable inbox, with the exit
status an MTA's pipe transport understands (0 stored, 75 try again later, 65/69 bounce), in
its own process as an MTA runs it; and a whole game played through it with a running
``pbm-emergo worker``."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import smtplib
import sqlite3
import subprocess
import sys
import tempfile
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db.models import BOARD_FINISHED, Board, InboundMessage
from pbm_emergo.db.session import get_engine, get_sessionmaker, upgrade_to_head
from pbm_emergo.ops.server import MailServer
from tests.e2e.postfix import PostfixInstance, unavailable_reason
from tests.ops import games
from tests.support.mail import SERVER_ADDRESS, command_mail, free_port, make_config, wait_for
from tests.support.waits import scaled

# The environment of a command an MTA runs: none of this test process's PBM_EMERGO_ settings.
ENV = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}


def run_deliver(
    config: Config, raw: bytes, *args: str, sender: str = "alice@example.org",
    recipient: str = SERVER_ADDRESS, env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``pbm-emergo deliver`` in a process of its own, the mail on its standard input."""
    done = subprocess.run(
        [sys.executable, "-m", "pbm_emergo", "deliver", f"--sender={sender}",
         f"--recipient={recipient}", "--data-dir", str(config.data_dir),
         "--database-url", str(config.effective_database_url), "--address", config.address,
         *args],
        input=raw, capture_output=True, timeout=120, env=env or ENV,
    )  # fmt: skip
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(),
                                       done.stderr.decode(errors="replace"))


def inbound_rows(config: Config) -> list[tuple[str, str | None, list[str]]]:
    path = str(config.effective_database_url).removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT envelope_sender, message_id, envelope_recipients "
                          "FROM inbound_messages ORDER BY id").fetchall()
    return [(sender, message_id, json.loads(rcpts)) for sender, message_id, rcpts in rows]


# What a `pbm-emergo deliver` process must not load to store a mail: the shell that runs
# commands and renders replies (the worker's), and Alembic with every migration script.
NOT_FOR_STORING = {
    "alembic", "mako", "pbm_emergo.app.dispatcher", "pbm_emergo.app.results",
    "pbm_emergo.db.apply", "pbm_emergo.views.templating",
}


def test_storing_a_mail_loads_neither_the_shell_nor_the_migrations(tmp_path: Path) -> None:
    """An MTA starts `pbm-emergo deliver` once a mail: what it loads, every mail pays for."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    upgrade_to_head(url=url)
    code = (
        "import sys\n"
        "from pbm_emergo.cli import deliver\n"
        "from pbm_emergo.mail import inbound\n"
        "from pbm_emergo.db.session import create_engine_for, current_revision, head_revision\n"
        f"assert current_revision(create_engine_for({url!r})) == head_revision()\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=ENV, check=True)
    assert NOT_FOR_STORING.isdisjoint(done.stdout.split())


@pytest.fixture
def config(tmp_path: Path) -> Config:
    """A migrated SQLite database, as `serve` leaves it."""
    made: Config = make_config(tmp_path)
    made.data_dir.mkdir(parents=True)
    upgrade_to_head(made)
    return made


def help_mail(message_id: str = "<d1@example.org>") -> bytes:
    return command_mail("help", message_id=message_id).as_bytes(policy=policy.SMTP)


def test_a_mail_is_stored_once_and_a_resend_is_answered_0_as_a_duplicate(
    config: Config,
) -> None:
    first = run_deliver(config, help_mail())
    assert (first.returncode, first.stderr) == (0, "")
    again = run_deliver(config, help_mail())
    assert again.returncode == 0
    # Logged as the listener logs a duplicate, on one line.
    [line] = again.stderr.splitlines()
    assert line.startswith("pbm-emergo deliver: WARNING") and "duplicate of in-1" in line
    assert inbound_rows(config) == [("alice@example.org", "<d1@example.org>", [SERVER_ADDRESS])]


def test_an_mbox_from_line_and_bare_line_ends_are_taken_as_the_listener_would(
    config: Config,
) -> None:
    """Postfix's local delivery (a .forward) puts a `From sender date` line first and gives
    LF line ends: stored in the wire form, the mail read as usual."""
    local = b"From alice@example.org  Thu Jan  1 00:00:00 2026\n" + (
        command_mail("help", message_id="<lf@example.org>").as_bytes().replace(b"\r\n", b"\n")
    )
    assert run_deliver(config, local).returncode == 0
    path = str(config.effective_database_url).removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        [(raw, subject)] = db.execute("SELECT raw, subject FROM inbound_messages").fetchall()
    assert raw.startswith(b"From: alice@example.org\r\n") and b"\n" not in raw.replace(b"\r\n", b"")
    assert subject == "help"


def test_a_mail_for_another_recipient_bounces_69_with_the_listeners_reason(
    config: Config,
) -> None:
    done = run_deliver(config, help_mail(), recipient="someone@elsewhere.example")
    assert done.returncode == 69
    assert done.stderr == "pbm-emergo deliver: 550 5.1.1 No such user here\n"
    assert inbound_rows(config) == []


def test_a_mail_over_the_size_limit_bounces_69(config: Config) -> None:
    big = command_mail("help", body="x" * 5000, message_id="<big@example.org>")
    done = run_deliver(config, big.as_bytes(), "--max-message-size", "2000")
    assert done.returncode == 69
    assert "552 5.3.4" in done.stderr and "2000 bytes" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert inbound_rows(config) == []


def test_a_sender_the_listener_refuses_at_mail_from_bounces_65(config: Config) -> None:
    done = run_deliver(config, help_mail(), sender="alice\x01@example.org")
    assert done.returncode == 65
    assert done.stderr == ("pbm-emergo deliver: 553 5.1.7 The sender address is not a "
                           "valid mail address\n")
    assert inbound_rows(config) == []


def test_a_bounce_with_the_null_sender_is_stored_and_not_answered(config: Config) -> None:
    done = run_deliver(config, help_mail("<bounce@example.org>"), sender="")
    assert done.returncode == 0
    assert inbound_rows(config) == [("", "<bounce@example.org>", [SERVER_ADDRESS])]


@pytest.mark.slow
def test_a_locked_database_is_75_so_that_the_mta_tries_again(config: Config) -> None:
    """SQLite's write lock held past the busy timeout (10 s): not stored now, not lost."""
    path = str(config.effective_database_url).removeprefix("sqlite:///")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        done = run_deliver(config, help_mail())
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert done.returncode == 75
    # One line, for the MTA's log: the answer, then what was logged (no traceback).
    [line] = done.stderr.splitlines()
    assert line.startswith(
        "pbm-emergo deliver: 451 4.3.0 Could not store the message, try again later | ERROR "
    )
    assert "database is locked" in line
    # Tried again by the MTA, once the lock is gone: stored.
    assert run_deliver(config, help_mail()).returncode == 0
    assert len(inbound_rows(config)) == 1


def test_an_unreachable_database_is_75(config: Config) -> None:
    port = free_port()  # nothing listens there
    unreachable = dataclasses.replace(
        config, database_url=f"postgresql+psycopg://pbm@127.0.0.1:{port}/pbm"
    )
    done = run_deliver(unreachable, help_mail())
    assert done.returncode == 75
    [line] = done.stderr.splitlines()
    assert line.startswith("pbm-emergo deliver: 451 4.3.0 Could not store the message")


def test_a_database_not_yet_migrated_is_75_with_what_the_operator_must_do(
    tmp_path: Path,
) -> None:
    fresh: Config = make_config(tmp_path / "fresh")
    fresh.data_dir.mkdir(parents=True)
    done = run_deliver(fresh, help_mail())
    assert done.returncode == 75
    assert "pbm-emergo db upgrade" in done.stderr and len(done.stderr.splitlines()) == 1


def test_sender_and_recipient_from_the_environment_of_a_local_delivery(
    config: Config,
) -> None:
    """Postfix's local(8) and procmail set SENDER and RECIPIENT for a command in a .forward."""
    env = {**ENV, "SENDER": "bob@example.org", "RECIPIENT": SERVER_ADDRESS}
    raw = help_mail("<env@example.org>")
    done = subprocess.run(
        [sys.executable, "-m", "pbm_emergo", "deliver", "--data-dir", str(config.data_dir),
         "--database-url", str(config.effective_database_url), "--address", config.address],
        input=raw, capture_output=True, timeout=120, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert inbound_rows(config) == [("bob@example.org", "<env@example.org>", [SERVER_ADDRESS])]
    # Neither given nor set: the mail is kept by the MTA (75) until the command is fixed.
    done = subprocess.run(
        [sys.executable, "-m", "pbm_emergo", "deliver", "--data-dir", str(config.data_dir),
         "--database-url", str(config.effective_database_url)],
        input=raw, capture_output=True, timeout=120, env=ENV,
    )  # fmt: skip
    assert done.returncode == 75
    assert b"--recipient" in done.stderr


@pytest.mark.slow
def test_a_whole_game_by_deliver_with_a_running_worker(
    db_config: Config, db_sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    """Players sign up, confirm, challenge, move and resign, every mail piped into
    `pbm-emergo deliver` as an MTA does; a `pbm-emergo worker` process, polling the inbox,
    answers each into a maildir."""
    config = dataclasses.replace(db_config, address=SERVER_ADDRESS)
    maildir = tmp_path / "replies"
    [match] = games.plan(1, 4, seed=24, prefix="pipe")
    delivered: list[str] = []

    def pipe(port: int, subject: str, userid: str, message_id: str) -> None:
        msg = command_mail(subject, sender=games.address(userid), message_id=message_id)
        done = run_deliver(config, msg.as_bytes(policy=policy.SMTP),
                           sender=games.address(userid))
        assert (done.returncode, done.stderr) == (0, "")
        delivered.append(message_id)

    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "pbm_emergo", "worker", "--data-dir", str(tmp_path / "w"),
             "--database-url", str(config.database_url), "--address", SERVER_ADDRESS,
             "--outbound", f"maildir:{maildir}", "--workers", "1"],
            stdout=out, stderr=subprocess.STDOUT, env=ENV,
        )  # fmt: skip
    try:
        wait_for(lambda: "replies go to" in log.read_text(), timeout=60)
        games.set_up(0, db_sessions, [match], send=pipe)
        for number in range(1, len(match.moves) + 1):
            pipe(0, *games.move_mail(match, number))
            games.wait_processed(db_sessions)
        pipe(0, f"emergo resign {match.board} {match.white} {games.PASSWORD}", match.white,
             "<resign@ops.test>")
        games.wait_processed(db_sessions)

        def replies() -> list[EmailMessage]:
            found = []
            for path in sorted((maildir / "new").iterdir()) if (maildir / "new").is_dir() else []:
                reply = BytesParser(policy=policy.default).parsebytes(path.read_bytes())
                assert isinstance(reply, EmailMessage)
                found.append(reply)
            return found

        # Every mail answered (the game's mails go to both players).
        wait_for(lambda: {r["In-Reply-To"] for r in replies()} >= set(delivered), timeout=60)
        # The opponent's board mail names no id of the resigner's mail: found by its outbox
        # row. It goes beside the answer to the resigner, perhaps a moment after it.
        cause = games.caused_by(db_sessions)
        [resigned] = wait_for(lambda: [
            r for r in replies() if cause.get(str(r["Message-ID"])) == "<resign@ops.test>"
            and r["To"] == games.address(match.black)
        ], timeout=60)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(scaled(60))
    assert worker.returncode == 0, log.read_text()[-3000:]
    with db_sessions() as session:
        assert session.scalar(
            select(Board.status).where(Board.number == match.board)
        ) == BOARD_FINISHED
        statuses = list(session.scalars(select(InboundMessage.status)))
    assert len(statuses) == len(delivered) == 2 + 2 + 1 + len(match.moves) + 1
    assert set(statuses) == {"done"}
    body = resigned.get_body(("plain",))
    assert body is not None and "resign" in body.get_content().lower()


EXAMPLE = Path(__file__).resolve().parents[2] / "deploy" / "postfix" / "master.cf-pipe"


class PipePostfix(PostfixInstance):
    """The tests' private Postfix, handing mail for the server's domain to `pbm-emergo
    deliver` by the pipe transport of deploy/postfix/master.cf-pipe (its program and files
    replaced by this test's) instead of SMTP."""

    def __init__(self, *, program: str, config_file: Path, **settings: Any) -> None:
        super().__init__(listener_port=0, **settings)
        self.program = program
        self.config_file = config_file

    def start(self) -> None:
        super().start()
        self._postfix("stop")
        example = EXAMPLE.read_text()
        entry = " ".join(line.strip() for line in example.splitlines()
                         if line.strip() and not line.startswith("#"))
        entry = (entry.replace("/opt/pbm-emergo/bin/pbm-emergo", self.program)
                 .replace("/etc/pbm-emergo/pbm-emergo.toml", str(self.config_file))
                 .replace("user=pbm-emergo", "user=nobody"))
        name, _, rest = entry.partition(" ")
        (self.conf / "transport").write_text(f"{self.server_domain} pbm-emergo:\n")
        self._postconf("-M", f"{name}/unix = {entry}")
        assert "pbm-emergo_destination_recipient_limit = 1" in example
        self._postconf("-e", "pbm-emergo_destination_recipient_limit = 1")
        result = self._postfix("start")
        if result.returncode != 0:
            raise RuntimeError(f"postfix start failed: {result.stdout}{result.stderr}")


def unprivileged_python() -> list[str] | None:
    """A command that runs this checkout's pbm_emergo as the `nobody` user (Postfix's pipe
    never runs a command as root): this interpreter, else the system's of the same version
    with the virtual environment's packages; None when neither can."""
    site = next((p for p in sys.path if p.endswith("site-packages") and sys.prefix in p), "")
    repo = str(Path(__file__).resolve().parents[2])
    system = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    for command in ([sys.executable],
                    ["/usr/bin/env", f"PYTHONPATH={repo}:{site}", system]):
        try:
            tried = subprocess.run(
                ["runuser", "-u", "nobody", "--", *command, "-c",
                 "import pbm_emergo.cli.deliver"],
                capture_output=True, timeout=120, cwd="/",
            )  # fmt: skip
        except OSError:
            continue
        if tried.returncode == 0:
            return command
    return None


@pytest.mark.postgres
def test_through_postfix_pipe_transport(postgres_database_url: str, tmp_path: Path) -> None:
    """A real Postfix pipes each mail for the server's domain into `pbm-emergo deliver`: a
    command is stored and answered (the reply back through Postfix), and a mail for an
    address that is not ours bounces with our reason (exit 69). PostgreSQL: the pipe runs
    as another user than this test, and a network database has no files to share."""
    reason = unavailable_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true: not skipping)")
        pytest.skip(reason)
    python = unprivileged_python()
    if python is None:
        # A property of where the virtual environment lives (under /root, say), not of a
        # package .ci/run installs: skipped, also under CI.
        pytest.skip("no Python interpreter the nobody user can run pbm_emergo with")
    postfix_port = free_port()
    root = Path(tempfile.mkdtemp(prefix="pbm-emergo-pipe-"))
    root.chmod(0o755)
    # The database's address in a file, never on the command line (`ps` shows that).
    settings = root / "pbm-emergo.toml"
    settings.write_text(f'database_url = "{postgres_database_url}"\n'
                        f'address = "{SERVER_ADDRESS}"\n'
                        f'data_dir = "{root / "data"}"\n')
    settings.chmod(0o644)
    postfix = PipePostfix(program=" ".join([*python, "-m", "pbm_emergo"]),
                          config_file=settings, port=postfix_port,
                          server_domain="emergo.test", mailbox_domain="player.test",
                          mailboxes=("alice",))
    config: Config = make_config(tmp_path, database_url=postgres_database_url,
                                 outbound=f"smtp://127.0.0.1:{postfix_port}")
    server = MailServer(config, get_sessionmaker(config), listen=False, poll_seconds=0.2)
    postfix.start()
    try:
        server.start()
        try:
            msg = command_mail("emergo help", sender="Alice <alice@player.test>",
                               message_id="<via-pipe@player.test>")
            with smtplib.SMTP("127.0.0.1", postfix_port, local_hostname="client.player.test",
                              timeout=30) as smtp:
                smtp.sendmail("alice@player.test", [SERVER_ADDRESS],
                              msg.as_bytes(policy=policy.SMTP))
                smtp.sendmail("alice@player.test", ["nobody-here@emergo.test"],
                              b"Subject: x\r\nMessage-ID: <lost@player.test>\r\n\r\nx\r\n")
                # A bounce (the null sender): stored with its empty sender, not answered.
                smtp.sendmail("", [SERVER_ADDRESS],
                              b"Subject: help\r\nMessage-ID: <dsn@player.test>\r\n\r\nx\r\n")
            box = postfix.maildir("alice")

            def delivered() -> list[EmailMessage]:
                if not (box / "new").is_dir():
                    return []
                found = []
                for path in sorted((box / "new").iterdir()):
                    mail = BytesParser(policy=policy.default).parsebytes(path.read_bytes())
                    assert isinstance(mail, EmailMessage)
                    found.append(mail)
                return found

            mails = wait_for(lambda: len(delivered()) >= 2 and delivered(), timeout=90,
                             interval=0.2)
            wait_for(lambda: postfix.log_text().count("delivered via pbm-emergo service") == 2,
                     timeout=30, interval=0.2)
            # Postfix read our exit statuses: 0 delivered, 69 bounced (our line the reason).
            wait_for(lambda: all(line in postfix.log_text() for line in (
                "relay=pbm-emergo, ",
                "status=sent (delivered via pbm-emergo service)",
                "status=bounced (service unavailable. Command output: pbm-emergo deliver: 550 "
                "5.1.1 No such user here )",
            )), timeout=30, interval=0.2)
        finally:
            server.stop()
    finally:
        log = postfix.log_text()
        postfix.stop()
        shutil.rmtree(root, ignore_errors=True)
        print(log[-4000:])
    [reply] = [m for m in mails if m["In-Reply-To"] == "<via-pipe@player.test>"]
    body = reply.get_body(("plain",))
    assert body is not None and "How to play Emergo" in body.get_content()
    [bounce] = [m for m in mails if "MAILER-DAEMON" in str(m["From"])]
    assert "550 5.1.1 No such user here" in bounce.as_string()
    with Session(get_engine(config)) as session:
        stored = session.execute(
            select(InboundMessage.message_id, InboundMessage.envelope_sender,
                   InboundMessage.not_answered).order_by(InboundMessage.message_id)
        ).all()
    assert [tuple(row)[:2] for row in stored] == [
        ("<dsn@player.test>", ""), ("<via-pipe@player.test>", "alice@player.test"),
    ]
    assert stored[0].not_answered and stored[1].not_answered is None
