"""`serve --listeners N`: N processes accept mail on the one listening socket the main
process bound (a Python process parses and stores one core's worth of mail). Every mail
is answered, a listener process that dies is started again, a second server on the port
still fails, and all of them stop on SIGTERM."""

from __future__ import annotations

import re
import signal
import smtplib
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.mail import SERVER_ADDRESS, command_mail, free_port, wait_for
from tests.support.servers import descendants
from tests.support.waits import scaled

from .support import clean_env


def listening_inode(port: int) -> str | None:
    """The inode of the socket listening on 127.0.0.1:``port`` (from /proc/net/tcp)."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, inode = fields[1], fields[3], fields[9]
        if state == "0A" and int(local.rpartition(":")[2], 16) == port:
            return inode
    return None


def holders(inode: str, pids: list[int]) -> list[int]:
    """Which of ``pids`` hold the socket ``inode`` open."""
    found = []
    for pid in pids:
        try:
            links = [p.readlink() for p in Path(f"/proc/{pid}/fd").iterdir()]
        except (FileNotFoundError, ProcessLookupError, OSError):
            continue
        if Path(f"socket:[{inode}]") in links:
            found.append(pid)
    return found


def family(pid: int) -> list[int]:
    """``pid`` and the processes below it."""
    return [pid, *descendants(pid)]


def three_holders(inode: str, pid: int) -> list[int] | None:
    """The processes of ``pid``'s family holding the socket ``inode``, when they are three
    (the main process and two listener processes), else None."""
    now = holders(inode, family(pid))
    return now if len(now) == 3 else None


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])


def send_many(port: int, count: int, tag: str) -> list[str]:
    def one(n: int) -> str:
        msg = command_mail("help", sender=f"p{n}@example.org",
                           message_id=f"<{tag}-{n}@example.org>")
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
            smtp.ehlo()
            smtp.mail(f"p{n}@example.org")
            smtp.rcpt(SERVER_ADDRESS)
            code, text = smtp.data(msg.as_bytes())
        return f"{code} {text.decode()}"

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, range(count)))


@pytest.mark.slow
def test_several_listener_processes_share_the_port(tmp_path: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "pbm_emergo", "serve", "--data-dir", str(data), "--port",
         str(port), "--address", SERVER_ADDRESS, "--workers", "1", "--listeners", "3"],
        stdout=log, stderr=subprocess.STDOUT, env=clean_env(),
    )  # fmt: skip
    try:
        inode = wait_for(lambda: listening_inode(port), timeout=60)
        # The main process and two listener processes hold the one listening socket.
        sharing = wait_for(lambda: three_holders(inode, server.pid), timeout=60)
        assert server.pid in sharing
        children = [p for p in sharing if p != server.pid]
        before = {p: cpu_ticks(p) for p in children}
        answers = send_many(port, 60, "a")
        assert all(a.startswith("250 ") for a in answers), answers
        # The listener processes took part (an idle one uses no CPU).
        assert any(cpu_ticks(p) - before[p] >= 2 for p in children)
        maildir = data / "outbox-maildir" / "new"
        wait_for(lambda: maildir.is_dir() and len(list(maildir.iterdir())) == 60, timeout=120)

        # The port is ours: a second server cannot bind it.
        other = subprocess.run(
            [sys.executable, "-m", "pbm_emergo", "serve", "--data-dir",
             str(tmp_path / "other"), "--port", str(port), "--address", SERVER_ADDRESS],
            capture_output=True, env=clean_env(), timeout=120,
        )  # fmt: skip
        assert other.returncode != 0
        assert b"address already in use" in other.stdout.lower() + other.stderr.lower()

        # A listener process killed is started again, and mail still flows.
        victim = next(p for p in sharing if p != server.pid)
        subprocess.run(["kill", "-KILL", str(victim)], check=True)
        # Read once a look: a listener dying after SIGKILL still holds the socket for a
        # moment, and must not count as one of three in a look that then finds it gone.
        wait_for(lambda: (now := three_holders(inode, server.pid)) and victim not in now,
                 timeout=60)
        answers = send_many(port, 20, "b")
        assert all(a.startswith("250 ") for a in answers), answers
        wait_for(lambda: len(list(maildir.iterdir())) == 80, timeout=120)
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(scaled(90))
        log.close()
    assert code == 0
    # All gone: the port can be bound again (as servers do, past connections in TIME_WAIT).
    assert listening_inode(port) is None
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen()
    text = (tmp_path / "serve.log").read_text()
    assert text.count("listening on") == 1  # said once for every listener process
    assert "exited with -9; starting it again" in text  # the listener killed
    # The log names each helper process with its pid, the one started again too.
    [named] = re.findall(r"pbm_emergo\.cli\.serve: processes: (.*)", text)
    first = dict(re.findall(r"(listener-\d+) \(pid (\d+)\)", named))
    [(name, again)] = re.findall(r"started again: (listener-\d+) \(pid (\d+)\)", text)
    assert first[name] == str(victim) and again != str(victim)
    assert "Traceback" not in text
