"""``pbm-emergo web`` and ``pbm-emergo serve --http-port`` as an operator starts them: real
processes on loopback, stopped with SIGTERM."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

import pytest

from tests.support.servers import free_port, running, web_server


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.status, answer.read().decode()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_pbm_emergo_web_serves_the_pages(database_url: str, tmp_path: Path) -> None:
    url, args = web_server(database_url, tmp_path / "web.log")
    with running(args, url + "/", tmp_path / "web.log"):
        status, page = get(url + "/")
        assert status == 200 and "No board is being played just now." in page
        status, page = get(url + "/standings")
        assert status == 200 and "robot1" in page


def test_serve_with_http_port_runs_the_web_view_beside_the_mail_server(tmp_path: Path) -> None:
    smtp, http = free_port(), free_port()
    args = [
        "serve", "--data-dir", str(tmp_path / "data"), "--port", str(smtp),
        "--http-port", str(http), "--workers", "1", "--log-level", "WARNING",
    ]  # fmt: skip
    with running(args, f"http://127.0.0.1:{http}/", tmp_path / "serve.log"):
        status, page = get(f"http://127.0.0.1:{http}/history")
        assert status == 200 and "No game has finished yet." in page
        with socket.create_connection(("127.0.0.1", smtp), timeout=10) as sock:
            assert sock.recv(100).startswith(b"220")
    # Stopped with the server: nothing listens on the web port any more.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", http), timeout=2).close()
