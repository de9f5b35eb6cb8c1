"""deploy/: the example configuration's web view and the nginx site in front of it agree,
nginx accepts the site as shipped, and behind it the pages take only GET and HEAD while the
console under /admin/ takes its forms' POSTs.

The nginx tests need Debian's nginx-light (or nginx) and openssl (.ci/run installs them);
elsewhere they are skipped with the reason, except under CI=true, where they fail."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pbm_emergo.config import load_config
from tests.support.mail import free_port, listening, wait_for
from tests.support.waits import scaled

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
SITE = DEPLOY / "nginx" / "pbm-emergo-web.conf"
CERTIFICATE_DIR = "/etc/letsencrypt/live/emergo.example.org"


def test_nginx_proxies_to_the_web_view_the_example_configures() -> None:
    config = load_config(config_file=DEPLOY / "pbm-emergo.toml", environ={})
    assert config.http_host == "127.0.0.1" and config.http_port > 0
    assert config.web_url is not None
    site = urlsplit(config.web_url)
    assert site.scheme == "https" and site.path in ("", "/")
    nginx = SITE.read_text()
    assert set(re.findall(r"proxy_pass http://([\d.]+):(\d+);", nginx)) == {
        (config.http_host, str(config.http_port))
    }
    assert set(re.findall(r"server_name (\S+);", nginx)) == {site.hostname}
    assert "GET|HEAD" in nginx  # the pages only read


def test_without_http_port_serve_starts_no_web_view() -> None:
    config = load_config(environ={})
    assert config.http_port == 0 and config.web_url is None and config.http_host == "127.0.0.1"
    config = load_config(
        environ={"PBM_EMERGO_HTTP_PORT": "8081", "PBM_EMERGO_WEB_URL": "https://x.example"}
    )
    assert (config.http_port, config.web_url) == (8081, "https://x.example")


# --- nginx itself -------------------------------------------------------------------------


def _nginx() -> str:
    """nginx's program, or the test skipped (failed under CI=true)."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    missing = (
        "nginx is not installed (Debian's nginx-light)"
        if found is None
        else ("openssl is not installed" if shutil.which("openssl") is None else None)
    )
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing} (CI=true: not skipping)")
        pytest.skip(missing)
    assert found is not None
    return found


def _certificate(folder: Path) -> None:
    """A self-signed certificate where the site expects certbot's."""
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", "/CN=emergo.example.org",
         "-keyout", str(folder / "privkey.pem"), "-out", str(folder / "fullchain.pem")],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip


def _main_conf(folder: Path, site: str) -> Path:
    """An nginx.conf of the test's (its own pid, logs and temporary files, as Debian's
    includes sites-enabled/ in ``http``) holding ``site``; nginx's ``-c``."""
    (folder / "site.conf").write_text(site)
    temp = "\n".join(
        f"    {kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    main = folder / "nginx.conf"
    main.write_text(
        f"pid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'};\n"
        f"events {{}}\nhttp {{\n    access_log off;\n{temp}\n"
        f"    include {folder / 'site.conf'};\n}}\n"
    )
    return main


def _as_shipped(folder: Path) -> str:
    """The shipped site, its certificate paths (certbot's) pointing at the test's."""
    _certificate(folder)
    return SITE.read_text().replace(CERTIFICATE_DIR, str(folder))


def _nginx_command(nginx: str, folder: Path, main: Path) -> list[str]:
    return [nginx, "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(main)]


def test_nginx_accepts_the_site_as_shipped(tmp_path: Path) -> None:
    nginx = _nginx()
    main = _main_conf(tmp_path, _as_shipped(tmp_path))
    checked = subprocess.run(
        [*_nginx_command(nginx, tmp_path, main), "-t"], capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    assert "test is successful" in checked.stderr


class _Backend(BaseHTTPRequestHandler):
    """Stands for the web view: answers every request 200, and notes its method and path."""

    seen: list[tuple[str, str]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.seen.append((self.command, self.path))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _answer

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def backend() -> Iterator[tuple[int, list[tuple[str, str]]]]:
    seen: list[tuple[str, str]] = []
    handler = type("Backend", (_Backend,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], seen
    server.shutdown()
    server.server_close()
    thread.join()


def test_behind_nginx_the_pages_only_read_and_the_console_takes_its_posts(
    tmp_path: Path, backend: tuple[int, list[tuple[str, str]]]
) -> None:
    """The shipped site on this machine's free ports (loopback only), in front of a stand-in
    for the web view: a POST to a page is refused by nginx, the console's login goes
    through."""
    nginx = _nginx()
    backend_port, seen = backend
    http_port, https_port = free_port(), free_port()
    site = _as_shipped(tmp_path)
    site = re.sub(r"^\s*listen \[::\]:.*\n", "", site, flags=re.M)
    site = site.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    site = site.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;")
    site = site.replace("http://127.0.0.1:8080", f"http://127.0.0.1:{backend_port}")
    main = _main_conf(tmp_path, site)
    server = subprocess.Popen(
        [*_nginx_command(nginx, tmp_path, main), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for(lambda: listening(https_port) or server.poll() is not None)
        assert server.poll() is None, (tmp_path / "error.log").read_text()
        tls = ssl.create_default_context(cafile=str(tmp_path / "fullchain.pem"))
        tls.check_hostname = False

        def ask(method: str, path: str, body: str | None = None) -> int:
            connection = http.client.HTTPSConnection("127.0.0.1", https_port, context=tls,
                                                     timeout=30)  # fmt: skip
            try:
                headers = {"Content-Type": "application/x-www-form-urlencoded"} if body else {}
                connection.request(method, path, body=body, headers=headers)
                answer = connection.getresponse()
                answer.read()
                return answer.status
            finally:
                connection.close()

        assert ask("GET", "/board/101") == 200
        assert ask("HEAD", "/") == 200
        assert ask("POST", "/board/101", "x=1") == 405
        assert ask("DELETE", "/") == 405
        assert ask("GET", "/admin/login") == 200
        assert ask("POST", "/admin/login", "username=olga&password=secret-enough") == 200
        assert ask("PUT", "/admin/support", "x=1") == 405
        assert seen == [("GET", "/board/101"), ("HEAD", "/"), ("GET", "/admin/login"),
                        ("POST", "/admin/login")]  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=scaled(30))
