"""deploy/: the example configuration's web view and the nginx snippet in front of it agree."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from pbm_emergo.config import load_config

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_nginx_proxies_to_the_web_view_the_example_configures() -> None:
    config = load_config(config_file=DEPLOY / "pbm-emergo.toml", environ={})
    assert config.http_host == "127.0.0.1" and config.http_port > 0
    assert config.web_url is not None
    site = urlsplit(config.web_url)
    assert site.scheme == "https" and site.path in ("", "/")
    nginx = (DEPLOY / "nginx" / "pbm-emergo-web.conf").read_text()
    assert re.findall(r"proxy_pass http://([\d.]+):(\d+);", nginx) == [
        (config.http_host, str(config.http_port))
    ]
    assert set(re.findall(r"server_name (\S+);", nginx)) == {site.hostname}
    assert "GET|HEAD" in nginx  # the site only reads


def test_without_http_port_serve_starts_no_web_view() -> None:
    config = load_config(environ={})
    assert config.http_port == 0 and config.web_url is None and config.http_host == "127.0.0.1"
    config = load_config(
        environ={"PBM_EMERGO_HTTP_PORT": "8081", "PBM_EMERGO_WEB_URL": "https://x.example"}
    )
    assert (config.http_port, config.web_url) == (8081, "https://x.example")
