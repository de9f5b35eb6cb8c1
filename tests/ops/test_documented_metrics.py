"""Every metric named in the README, docs/operations.md and deploy/prometheus/ is one the
server serves (so that dashboards and alerts built from the documentation work), and the
example configuration turns metrics on."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path

from sqlalchemy.orm import sessionmaker

from pbm_emergo.config import load_config
from pbm_emergo.db.session import create_engine_for, upgrade_to_head
from pbm_emergo.db.types import utcnow
from pbm_emergo.ops.database_metrics import metrics_endpoint

from .support import ROOT, scrape

NAME = re.compile(r"\bpbm_emergo_[a-z_]+[a-z]\b")


def served_names(tmp_path: Path) -> set[str]:
    url = f"sqlite:///{tmp_path / 'm.sqlite3'}"
    upgrade_to_head(url=url)
    engine = create_engine_for(url)
    endpoint = metrics_endpoint("127.0.0.1", 0, sessionmaker(engine), utcnow)
    endpoint.start()
    try:
        names = {name for name, _ in scrape(endpoint.port)}
        with urllib.request.urlopen(f"http://127.0.0.1:{endpoint.port}/metrics") as answer:
            # Families with labels but no sample yet (no mail processed) show in # TYPE.
            names |= set(re.findall(r"^# TYPE (\S+)", answer.read().decode(), re.M))
    finally:
        endpoint.stop()
        engine.dispose()
    # A counter or histogram family is named without its _total/_bucket/... suffix.
    return names | {re.sub(r"_(total|bucket|count|sum|created)$", "", n) for n in names}


def test_every_documented_metric_is_served(tmp_path: Path) -> None:
    served = served_names(tmp_path)
    documents = [ROOT / "README.md", ROOT / "docs" / "operations.md",
                 *sorted((ROOT / "deploy" / "prometheus").glob("*.yml"))]
    named = {(doc.name, name) for doc in documents for name in NAME.findall(doc.read_text())}
    assert len({name for _, name in named}) >= 14
    assert sorted((doc, name) for doc, name in named if name not in served) == []


def test_the_example_configuration_serves_metrics() -> None:
    config = load_config(config_file=ROOT / "deploy" / "pbm-emergo.toml", environ={})
    assert config.metrics_port == 9108 and config.metrics_host == "127.0.0.1"
    assert config.log_format == "text"
    scrape_config = (ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text()
    assert f"127.0.0.1:{config.metrics_port}" in scrape_config
