"""``pbm-emergo check``: a working setup is all good; each broken one (an unmigrated
database, a wrong mailbox password, a missing CA file, a maildir without tmp, a data folder
others may read) is found, with the setting or step that fixes it, and the exit status 1.
The mailbox cases log in to a real Dovecot (tests/support/dovecot.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbm_emergo.cli import main
from pbm_emergo.db.session import upgrade_to_head
from tests.support import dovecot
from tests.support.mail import free_port


@pytest.fixture(autouse=True)
def _only_these_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No PBM_EMERGO_* setting from outside; a free listener port; a private data folder."""
    for name in list(os.environ):
        if name.startswith("PBM_EMERGO_") and name != "PBM_EMERGO_TEST_POSTGRES_URL":
            monkeypatch.delenv(name)
    monkeypatch.setenv("PBM_EMERGO_SMTP_PORT", str(free_port()))
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    monkeypatch.setenv("PBM_EMERGO_DATA_DIR", str(data))


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["check", *args])
    out, err = capsys.readouterr()
    return status, out + err


def problem(output: str, part: str) -> str:
    """The PROBLEM line of ``part`` with its fix line."""
    lines = output.splitlines()
    for n, line in enumerate(lines):
        if line.startswith("PROBLEM") and line[8:].startswith(part):
            return line + "\n" + lines[n + 1]
    raise AssertionError(f"no problem with {part} in:\n{output}")


def test_a_working_setup_is_all_good(capsys: pytest.CaptureFixture[str],
                                     database_url: str) -> None:
    status, out = check(capsys, "--database-url", database_url)
    assert status == 0, out
    assert out.rstrip().endswith("all good")
    assert "PROBLEM" not in out
    assert "at the newest schema" in out and "free, `serve` can listen there" in out


def test_an_unmigrated_database(capsys: pytest.CaptureFixture[str],
                                empty_database_url: str) -> None:
    if empty_database_url.startswith("sqlite:///"):
        Path(empty_database_url.removeprefix("sqlite:///")).touch(mode=0o600)
    status, out = check(capsys, "--database-url", empty_database_url)
    assert status == 1
    found = problem(out, "database")
    assert "schema revision (empty)" in found and "fix: run `pbm-emergo db upgrade`" in found


def test_a_missing_sqlite_database_is_reported_not_made(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out = check(capsys)
    assert status == 1
    assert "PBM_EMERGO_DATA_DIR" in problem(out, "database")
    assert not (tmp_path / "data" / "pbm-emergo.sqlite3").exists()


def test_a_maildir_without_tmp(capsys: pytest.CaptureFixture[str], database_url: str,
                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    maildir = tmp_path / "replies"
    for sub in ("new", "cur"):
        (maildir / sub).mkdir(parents=True)
    monkeypatch.setenv("PBM_EMERGO_OUTBOUND", f"maildir:{maildir}")
    status, out = check(capsys, "--database-url", database_url)
    assert status == 1
    found = problem(out, "outbound")
    assert "has no tmp folder" in found
    assert f"mkdir -m 700 {maildir / 'tmp'}" in found and "PBM_EMERGO_OUTBOUND" in found


def test_a_data_folder_others_may_read(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    upgrade_to_head(url=f"sqlite:///{data / 'pbm-emergo.sqlite3'}")
    data.chmod(0o755)
    status, out = check(capsys)
    assert status == 1
    found = problem(out, "data folder")
    assert f"{data} (drwxr-xr-x)" in found and f"fix: chmod -R go= {data}" in found
    data.chmod(0o700)
    status, out = check(capsys)
    assert status == 0, out


@pytest.fixture
def mailbox() -> Iterator[dovecot.Dovecot]:
    reason = dovecot.unavailable_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true: not skipping)")
        pytest.skip(reason)
    imap = dovecot.Dovecot()
    imap.start()
    yield imap
    imap.remove()


def test_the_mailbox_login_and_its_certificate(
    capsys: pytest.CaptureFixture[str], database_url: str, mailbox: dovecot.Dovecot,
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setenv("PBM_EMERGO_INBOX", mailbox.url())
    monkeypatch.setenv("PBM_EMERGO_INBOX_PASSWORD_FILE", str(mailbox.password_file))
    monkeypatch.setenv("PBM_EMERGO_INBOX_CA_FILE", str(mailbox.ca_file))
    status, out = check(capsys, "--database-url", database_url)
    assert status == 0, out
    assert "logged in over TLS, the folder INBOX read" in out
    # A wrong password: the password file is the fix.
    wrong = tmp_path / "wrong-password"
    wrong.write_text("not-the-password\n")
    monkeypatch.setenv("PBM_EMERGO_INBOX_PASSWORD_FILE", str(wrong))
    status, out = check(capsys, "--database-url", database_url)
    assert status == 1
    found = problem(out, "intake")
    assert "refused the login of 'games@example.org'" in found
    assert "PBM_EMERGO_INBOX_PASSWORD_FILE" in found
    assert "not-the-password" not in out
    monkeypatch.setenv("PBM_EMERGO_INBOX_PASSWORD_FILE", str(mailbox.password_file))
    # A CA file that is not there, and none at all (the private CA is no system CA).
    monkeypatch.setenv("PBM_EMERGO_INBOX_CA_FILE", str(tmp_path / "missing-ca.pem"))
    status, out = check(capsys, "--database-url", database_url)
    assert status == 1
    found = problem(out, "intake")
    assert "missing-ca.pem does not exist" in found and "PBM_EMERGO_INBOX_CA_FILE" in found
    monkeypatch.delenv("PBM_EMERGO_INBOX_CA_FILE")
    status, out = check(capsys, "--database-url", database_url)
    assert status == 1
    found = problem(out, "intake")
    assert "could not be verified" in found and "PBM_EMERGO_INBOX_CA_FILE" in found


def test_a_relay_that_does_not_answer_and_a_port_taken_by_another_program(
    capsys: pytest.CaptureFixture[str], database_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket
    import threading

    closed = free_port()  # nothing listens there
    monkeypatch.setenv("PBM_EMERGO_OUTBOUND", f"smtp://127.0.0.1:{closed}")
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        monkeypatch.setenv("PBM_EMERGO_SMTP_PORT", str(other.getsockname()[1]))

        def greet() -> None:
            conn, _ = other.accept()
            with conn:
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

        thread = threading.Thread(target=greet)
        thread.start()
        status, out = check(capsys, "--database-url", database_url)
        thread.join(10)
    assert status == 1
    found = problem(out, "outbound")
    assert f"127.0.0.1:{closed}" in found and "fix: outbound (PBM_EMERGO_OUTBOUND)" in found
    found = problem(out, "intake")
    assert "no mail server listens there" in found and "PBM_EMERGO_SMTP_PORT" in found


def test_a_database_that_cannot_be_reached(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"postgresql+psycopg://pbm:secret-pw@127.0.0.1:{free_port()}/pbm_emergo"
    status, out = check(capsys, "--database-url", url)
    assert status == 1
    found = problem(out, "database")
    assert "cannot be reached" in found and "PBM_EMERGO_DATABASE_URL" in found
    assert "secret-pw" not in out
