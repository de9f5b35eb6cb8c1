"""An installed wheel carries its migrations and templates: `db upgrade` works without a
source checkout (as the deploy instructions install it: `pip install .`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_wheel_migrates_and_renders_without_the_source_tree(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path),
         str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    [wheel] = tmp_path.glob("pbm_emergo-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "pbm_emergo/migrations/env.py" in names
    assert any(n.startswith("pbm_emergo/migrations/versions/") for n in names)
    assert "pbm_emergo/templates/board.txt.j2" in names

    installed = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(installed)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # Only the unpacked wheel on the path (plus the dependencies of this interpreter),
    # run from a folder with no alembic.ini and no migrations/.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
    env["PYTHONPATH"] = str(installed)

    def cli(*args: str) -> str:
        result = subprocess.run(
            [sys.executable, "-m", "pbm_emergo", *args, "--data-dir", str(elsewhere / "data")],
            cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120, check=False,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    probe = subprocess.run(
        [sys.executable, "-c", "import pbm_emergo; print(pbm_emergo.__file__)"],
        cwd=elsewhere, env=env, capture_output=True, text=True, check=True,
    )
    assert probe.stdout.startswith(str(installed))
    cli("db", "upgrade")
    assert "(up to date)" in cli("db", "current")
    assert json.loads(cli("admin", "games", "--json")) == []
