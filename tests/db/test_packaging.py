"""An installed wheel carries its migrations and templates: `db upgrade` works without a
source checkout (as the deploy instructions install it: `pip install .`). An editable install
(`pip install -e .`, as CI and developers use) reads them from the source tree. Both come from
the top-level templates/ and migrations/ folders by the build's package-dir mapping."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The top-level folders the build maps into the package.
DATA_PACKAGES = {
    "pbm_emergo.docs": "docs",
    "pbm_emergo.templates": "templates",
    "pbm_emergo.migrations": "migrations",
}


def test_the_build_names_every_package_and_maps_the_data_folders() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    in_tree = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "pbm_emergo").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert set(setuptools["packages"]) == in_tree | set(DATA_PACKAGES)
    assert setuptools["package-dir"] == DATA_PACKAGES
    for folder in DATA_PACKAGES.values():
        assert (ROOT / folder).is_dir()
        # Found through the build setting, not through a link inside the package.
        assert not (ROOT / "pbm_emergo" / folder).exists()


@pytest.mark.slow
@pytest.mark.xdist_group("source-tree-build")  # both build in the checkout
def test_a_wheel_migrates_and_renders_without_the_source_tree(tmp_path: Path) -> None:
    # Built from a copy: a build in the checkout leaves build/lib behind, whose stale modules
    # a later build would ship.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".hypothesis", "build", "dist", "*.egg-info", "__pycache__", ".*_cache",
        "data"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path),
         str(source)],
        check=True, capture_output=True, timeout=300,
    )
    [wheel] = tmp_path.glob("pbm_emergo-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "pbm_emergo/migrations/env.py" in names
    assert any(n.startswith("pbm_emergo/migrations/versions/") for n in names)
    assert "pbm_emergo/templates/board.txt.j2" in names
    assert "pbm_emergo/docs/rules.md" in names  # the web view's /rules/engine page
    assert "pbm_emergo/docs/rules-for-players.md" in names  # /rules and help rules
    for lang in ("nl", "de", "fr"):  # ... in the reader's language
        assert f"pbm_emergo/docs/rules-for-players.{lang}.md" in names
    for lang in ("nl", "de", "fr"):  # the compiled catalogs of the replies and pages
        assert f"pbm_emergo/locale/{lang}/LC_MESSAGES/messages.mo" in names

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
    rules = subprocess.run(
        [sys.executable, "-c", "from pbm_emergo.web.rules import rules_page, rules_path; "
         "print(rules_path()); print(rules_page().headings[0])"],
        cwd=elsewhere, env=env, capture_output=True, text=True, check=True,
    )
    assert rules.stdout.splitlines() == [str(installed / "pbm_emergo/docs/rules.md"),
                                         "Board and names"]  # fmt: skip
    players = subprocess.run(
        [sys.executable, "-c", "from pbm_emergo.web.rules import player_rules_page; "
         "print(player_rules_page().title)"],
        cwd=elsewhere, env=env, capture_output=True, text=True, check=True,
    )
    assert players.stdout.splitlines() == ["How to play Emergo"]
    german = subprocess.run(
        [sys.executable, "-c", "from pbm_emergo.views.i18n import speaking, _\n"
         "with speaking('de'): print(_('Your command:'))"],
        cwd=elsewhere, env=env, capture_output=True, text=True, check=True,
    )
    assert german.stdout.splitlines() == ["Dein Befehl:"]
    cli("db", "upgrade")
    assert "(up to date)" in cli("db", "current")
    assert json.loads(cli("admin", "games", "--json")) == []



@pytest.mark.slow
@pytest.mark.xdist_group("source-tree-build")  # both build in the checkout
def test_an_editable_install_finds_the_templates_and_migrations(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # The dependencies from this interpreter's site-packages (PYTHONPATH: its .pth files,
    # among them this checkout's own editable install, are not read); pbm_emergo from the
    # new install.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
    env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
    probe = subprocess.run(
        [str(python), "-c",
         "import pbm_emergo.db.session as s, pbm_emergo.views.templating as t; "
         "print(s.MIGRATIONS_DIR); print(t.template_dir()); "
         "print(t.environment().get_template('board.txt.j2').filename)"],
        cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert probe.returncode == 0, probe.stderr
    migrations, templates, board = probe.stdout.splitlines()
    assert Path(migrations) == ROOT / "migrations"
    assert Path(templates) == ROOT / "templates"
    assert Path(board) == ROOT / "templates" / "board.txt.j2"
    upgrade = subprocess.run(
        [str(python), "-m", "pbm_emergo", "db", "upgrade", "--data-dir", str(elsewhere / "d")],
        cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert upgrade.returncode == 0, upgrade.stderr
