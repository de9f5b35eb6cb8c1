"""The deploy/ files agree with the code: the example configuration loads, and the Postfix
transport points at the listener it configures."""

from __future__ import annotations

import re
from pathlib import Path

from pbm_emergo.config import load_config
from pbm_emergo.mail.outbound import SMTPTransport, transport_for

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_example_configuration_loads_and_matches_the_postfix_snippet() -> None:
    config = load_config(config_file=DEPLOY / "pbm-emergo.toml", environ={})
    assert config.address == "pbmserv@emergo.example.org"
    assert (config.smtp_host, config.smtp_port) == ("127.0.0.1", 2525)
    outbound = transport_for(config.effective_outbound, config.domain)
    assert isinstance(outbound, SMTPTransport) and (outbound.host, outbound.port) == (
        "127.0.0.1", 25
    )
    transport = (DEPLOY / "postfix" / "transport").read_text()
    route = re.search(r"^(\S+)\s+smtp:\[([\d.]+)\]:(\d+)$", transport, re.MULTILINE)
    assert route is not None
    assert route.group(1) == config.domain
    assert (route.group(2), int(route.group(3))) == (config.smtp_host, config.smtp_port)
    recipients = (DEPLOY / "postfix" / "pbm-emergo-recipients").read_text()
    assert f"{config.address} " in recipients and f"postmaster@{config.domain} " in recipients


def test_environment_wins_over_the_file() -> None:
    config = load_config(
        config_file=DEPLOY / "pbm-emergo.toml", environ={"PBM_EMERGO_REPLY_LIMIT": "7"}
    )
    assert config.reply_limit == 7


def test_systemd_unit_runs_migrations_then_serve() -> None:
    unit = (DEPLOY / "pbm-emergo.service").read_text()
    assert re.search(r"^ExecStartPre=\S+/pbm-emergo db upgrade$", unit, re.MULTILINE)
    assert re.search(r"^ExecStart=\S+/pbm-emergo serve$", unit, re.MULTILINE)
    assert "KillSignal=SIGTERM" in unit
