"""One configuration for every command: ``serve``, ``worker``, ``web``, ``deliver``,
``admin``, ``check`` and ``db`` read the same sources in the same order (the TOML file, then
the environment, then their own flags), the default file included; and ``admin`` works only
on the configured, existing database."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pbm_emergo import config as config_module
from pbm_emergo.cli import build_parser, main
from pbm_emergo.cli.settings import config_for
from pbm_emergo.db.session import upgrade_to_head

# Each command as an operator types it, without settings of its own.
COMMANDS = (
    ["serve"], ["worker"], ["web"], ["deliver"], ["check"], ["db", "current"],
    ["admin", "games"], ["admin", "mail"], ["admin", "adjudicate", "101", "draw", "--reason",
                                              "x"], ["admin", "stats"],
)


@pytest.fixture(autouse=True)
def _no_outside_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("PBM_EMERGO_") and name != "PBM_EMERGO_TEST_POSTGRES_URL":
            monkeypatch.delenv(name)
    # No /etc/pbm-emergo/pbm-emergo.toml of this machine's in the way.
    monkeypatch.setattr(config_module, "DEFAULT_CONFIG_FILE", tmp_path / "absent.toml")


def _config_of(argv: list[str]) -> config_module.Config:
    return config_for(build_parser(argv).parse_args(argv))


def test_every_command_reads_the_file_then_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = tmp_path / "pbm-emergo.toml"
    toml.write_text(f'data_dir = "{tmp_path / "data"}"\nreply_limit = 7\n'
                    'address = "games@file.example"\n')
    monkeypatch.setenv("PBM_EMERGO_CONFIG", str(toml))
    monkeypatch.setenv("PBM_EMERGO_REPLY_LIMIT", "42")  # the environment wins over the file
    configs = {" ".join(argv): _config_of(argv) for argv in COMMANDS}
    for command, config in configs.items():
        assert (config.data_dir, config.reply_limit, config.address) == (
            tmp_path / "data", 42, "games@file.example"), command
    # The flags come last; --config names the file as PBM_EMERGO_CONFIG does.
    monkeypatch.delenv("PBM_EMERGO_CONFIG")
    for argv in COMMANDS:
        config = _config_of([*argv, "--config", str(toml), "--data-dir", str(tmp_path / "x")])
        assert (config.data_dir, config.reply_limit) == (tmp_path / "x", 42), argv


def test_the_default_file_is_read_where_no_other_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    default = tmp_path / "etc-pbm-emergo.toml"
    default.write_text("reply_limit = 9\n")
    monkeypatch.setattr(config_module, "DEFAULT_CONFIG_FILE", default)
    for argv in COMMANDS:
        assert _config_of(argv).reply_limit == 9, argv
    other = tmp_path / "other.toml"
    other.write_text("reply_limit = 11\n")
    assert _config_of(["admin", "games", "--config", str(other)]).reply_limit == 11


def test_admin_refuses_another_database_than_the_configured_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    database_url: str,
) -> None:
    configured = tmp_path / "server"
    upgrade_to_head(url=f"sqlite:///{configured / 'pbm-emergo.sqlite3'}")
    toml = tmp_path / "pbm-emergo.toml"
    toml.write_text(f'data_dir = "{configured}"\n')
    monkeypatch.setenv("PBM_EMERGO_CONFIG", str(toml))
    assert main(["admin", "games"]) == 0
    capsys.readouterr()
    assert main(["admin", "games", "--database-url", database_url]) == 1
    err = capsys.readouterr().err
    assert "but the configuration (the file " in err and str(configured) in err
    # Without a configuration naming one, an explicit database is taken.
    monkeypatch.delenv("PBM_EMERGO_CONFIG")
    assert main(["admin", "games", "--database-url", database_url]) == 0


def test_admin_makes_no_database_where_there_is_none(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    for argv in (["admin", "games"], ["admin", "unlock", "bob", "--reason", "x"]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert "there is no database at" in err and "no configuration file" in err
        assert "--config" in err
    assert not (tmp_path / "pbm-emergo-data" / "pbm-emergo.sqlite3").exists()
