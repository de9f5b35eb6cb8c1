"""An operator's first hour: the README's quick start run as written (twice, answered both
times), startup logging a few lines in one format, ``admin mail`` paged, and ``admin backup``
refusing a folder that does not exist."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.cli import main
from pbm_emergo.config import Config
from pbm_emergo.db import inbox, outbox
from pbm_emergo.db.session import upgrade_to_head
from tests.ops.support import ROOT, clean_env
from tests.support.mail import free_port, wait_for
from tests.support.waits import scaled

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
README = ROOT / "README.md"
# A line of the text log format (telemetry.logs.TEXT_FORMAT): time, level, process, thread
# (which may hold spaces), logger, message.
TEXT_LINE = re.compile(
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (?P<level>[A-Z]+) (?P<process>\S+) .*? "
    r"(?P<logger>[\w.]+): (?P<message>.*)"
)


def readme_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), re.S)


def test_the_readme_snippet_uses_the_folder_the_first_command_serves_into() -> None:
    first_command = readme_blocks("sh")[0]
    assert first_command.rstrip().endswith(".venv/bin/pbm-emergo serve")  # the default folder
    snippet = readme_blocks("python")[0]
    assert f'REPLIES = "{Config().data_dir}/outbox-maildir/new"' in snippet
    assert "--data-dir" not in README.read_text().split("## Running it for real")[0]


def _startup_lines(log: str) -> list[str]:
    """The INFO lines of the log up to the web view's address, but the line naming the
    helper processes (the web view's own process may log before or after it)."""
    lines = []
    for line in log.splitlines():
        match = TEXT_LINE.fullmatch(line)
        assert match is not None, f"not in the server's log format: {line!r}"
        if match["level"] == "INFO" and not match["message"].startswith("processes: "):
            lines.append(match["message"])
            if match["message"].startswith("web view on "):
                break
    return lines


def _answered(output: str) -> list[tuple[str, list[str]]]:
    """Each mail the snippet sent (the SMTP answer line) with the replies it printed."""
    mails: list[tuple[str, list[str]]] = []
    for line in output.splitlines():
        if re.match(r"\d{3} ", line):
            mails.append((line, []))
        elif line.startswith("  ->"):
            mails[-1][1].append(line)
    return mails


@pytest.mark.slow
def test_the_readme_quick_start_run_twice_is_answered_both_times(tmp_path: Path) -> None:
    """The README's first command (with the web view on, and a free port), then its try-it
    snippet as written, twice: every mail is answered both times, the resent copy is a
    duplicate that the log explains, and startup logs a few lines in one format."""
    port, http_port = free_port(), free_port()
    snippet = readme_blocks("python")[0]
    assert snippet.count('smtplib.SMTP("127.0.0.1", 2525)') == 1
    (tmp_path / "first_game.py").write_text(
        snippet.replace('smtplib.SMTP("127.0.0.1", 2525)', f'smtplib.SMTP("127.0.0.1", {port})')
    )
    log_path = tmp_path / "serve.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "pbm_emergo", "serve", "--port", str(port),
             "--http-port", str(http_port)],
            cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, env=clean_env(),
        )  # fmt: skip
    try:
        wait_for(lambda: "web view on" in log_path.read_text(), timeout=120, interval=0.2)
        startup = _startup_lines(log_path.read_text())
        runs = [
            subprocess.run(
                [sys.executable, "first_game.py"], cwd=tmp_path, capture_output=True,
                text=True, timeout=300, check=True,
            ).stdout
            for _ in range(2)
        ]
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(scaled(90))
    assert code == 0
    log_text = log_path.read_text()

    data = (tmp_path / "pbm-emergo-data").resolve()
    expected = [
        rf"pbm-emergo \S+: serve, data dir {re.escape(str(data))}",
        rf"database sqlite:///{re.escape(str(data))}/pbm-emergo\.sqlite3 at schema revision "
        r"\S+ \(created now\)",
        rf"listening on 127\.0\.0\.1:{port} \(SMTP, \d+ process(es)?\) for mail to "
        r"pbmserv@localhost",
        rf"replies go to maildir:{re.escape(str(data))}/outbox-maildir; \d+ inbox workers?",
        rf"web view on http://127\.0\.0\.1:{http_port}/",
    ]
    assert len(startup) == len(expected), startup
    for line, pattern in zip(startup, expected, strict=True):
        assert re.fullmatch(pattern, line), (line, pattern)
    # Each helper process by name and pid: they all run serve's command line.
    [named] = re.findall(r"INFO MainProcess MainThread pbm_emergo.cli.serve: processes: (.*)",
                         log_text)
    helpers = dict(re.findall(r"(\S+) \(pid (\d+)\)", named))
    assert {"worker-1", "outbox", "robots", "web"} <= set(helpers), named
    for noise in ("alembic", "uvicorn", "Uvicorn", "Running upgrade", "non-transactional"):
        assert noise not in log_text
    for line in log_text.splitlines():
        assert TEXT_LINE.fullmatch(line), f"not in the server's log format: {line!r}"

    for n, output in enumerate(runs, start=1):
        mails = _answered(output)
        *commands, resent = mails
        assert commands and all(replies for _, replies in commands), output
        assert "no reply within" not in output
        assert resent == ("250 2.0.0 OK (duplicate, already received) <- emergo move 101 "
                          "alice alice-secret e4#1", [])
        board = 100 + n  # the second run opens a board of its own
        assert f"  -> bob@example.org: New Emergo Board {board} alice" in output
    assert "  -> bob@example.org: Emergo Board 101 bob **" in runs[0]
    assert "  -> alice@example.org: Emergo Board 101 Error" in runs[1]  # the #1 guard
    duplicates = [m for m in map(TEXT_LINE.fullmatch, log_text.splitlines())
                  if m and "duplicate of" in m["message"]]
    assert len(duplicates) == 2
    assert all(m["level"] == "WARNING" and "send it with a new Message-ID" in m["message"]
               for m in duplicates)


def test_the_web_view_logs_uvicorn_through_the_servers_format(tmp_path: Path) -> None:
    """uvicorn's own lines (shown at DEBUG) come in the server's format, here JSON."""
    port = free_port()
    log_path = tmp_path / "web.log"
    with log_path.open("wb") as log:
        web = subprocess.Popen(
            [sys.executable, "-m", "pbm_emergo", "web", "--port", str(port), "--data-dir",
             str(tmp_path / "data"), "--log-level", "DEBUG"],
            stdout=log, stderr=subprocess.STDOUT,
            env=clean_env(PBM_EMERGO_LOG_FORMAT="json"),
        )  # fmt: skip
    try:
        wait_for(lambda: "Uvicorn running on" in log_path.read_text(), timeout=120,
                 interval=0.2)
    finally:
        web.send_signal(signal.SIGTERM)
        code = web.wait(scaled(60))
    assert code == 0
    records = [json.loads(line) for line in log_path.read_text().splitlines()]
    running = [r for r in records if "Uvicorn running on" in r.get("message", "")]
    assert [r["logger"] for r in running] == ["uvicorn.error"]
    assert any(r["message"] == f"web view on http://127.0.0.1:{port}/" for r in records)


# --- admin mail, admin backup ------------------------------------------------------------


def admin(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> tuple[int, str, str]:
    status = main(["admin", *args, "--database-url", url])
    out, err = capsys.readouterr()
    return status, out, err


def _fifty_mails(sessions: sessionmaker[Session]) -> None:
    """in-1 .. in-25 and out-1 .. out-25, each reply a minute after its mail."""
    with sessions.begin() as session:
        for n in range(1, 26):
            received = NOW + timedelta(minutes=2 * n)
            mail, _ = inbox.enqueue_inbound(
                session, b"x", f"p{n}@example.org", ["pbmserv@localhost"], f"<{n}@x>", received
            )
            outbox.enqueue_outbound(session, f"p{n}@example.org", b"reply",
                                    received + timedelta(minutes=1), inbound_id=mail.id)


def _ids(out: str) -> list[str]:
    return re.findall(r"^((?:in|out)-\d+) ", out, re.M)


def test_admin_mail_shows_a_page_newest_first_with_a_count(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    _fifty_mails(db_sessions)
    status, out, _ = admin(capsys, database_url, "mail")
    assert status == 0
    assert out.splitlines()[0] == ("showing 1-20 of 50, newest first; --page 2 for the next "
                                   "20")
    assert _ids(out) == [f"{q}-{n}" for n in range(25, 15, -1) for q in ("out", "in")]

    status, out, _ = admin(capsys, database_url, "mail", "--page", "3")
    assert out.splitlines()[0] == "showing 41-50 of 50, newest first"
    assert _ids(out) == [f"{q}-{n}" for n in range(5, 0, -1) for q in ("out", "in")]

    status, out, _ = admin(capsys, database_url, "mail", "--queue", "inbound",
                           "--page-size", "10", "--page", "2")
    assert out.splitlines()[0] == ("showing 11-20 of 25, newest first; --page 3 for the next "
                                   "5")
    assert _ids(out) == [f"in-{n}" for n in range(15, 5, -1)]

    status, out, _ = admin(capsys, database_url, "mail", "--json", "--page-size", "3")
    assert [m["id"] for m in json.loads(out)] == ["out-25", "in-25", "out-24"]

    status, out, err = admin(capsys, database_url, "mail", "--page", "4")
    assert (status, out) == (1, "")
    assert "there is no page 4: 50 messages make 3 pages of 20" in err

    with pytest.raises(SystemExit):
        admin(capsys, database_url, "mail", "--page", "0")
    assert "not a whole number from 1" in capsys.readouterr().err


def _sqlite_database(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    upgrade_to_head(url=url)
    return url


def test_admin_backup_refuses_a_folder_that_does_not_exist(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    url = _sqlite_database(tmp_path)
    target = tmp_path / "bakcups" / "nightly" / "pbm.sqlite3"  # a typo of backups/
    status, out, err = admin(capsys, url, "backup", str(target))
    assert (status, out) == (1, "")
    assert f"the folder {target.parent} does not exist" in err and "--parents" in err
    assert not (tmp_path / "bakcups").exists()

    status, out, err = admin(capsys, url, "backup", str(target), "--parents")
    assert status == 0, err
    assert "quick_check ok" in out and target.is_file()

    (tmp_path / "a-file").write_text("")
    status, _, err = admin(capsys, url, "backup", str(tmp_path / "a-file" / "x.sqlite3"),
                           "--parents")
    assert status == 1 and "is not a folder" in err
