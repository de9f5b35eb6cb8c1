"""The settings of every ``pbm-emergo`` command that reads them: one set of options and one
way to read them (:func:`pbm_emergo.config.load_config`: the TOML file, then the
environment, then the command's own flags), so that ``serve``, ``worker``, ``web``,
``deliver``, ``admin``, ``check`` and ``db`` agree on the database and every limit."""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path

from pbm_emergo.config import ENV_PREFIX, Config, config_file_path, load_config

# The options every such command takes (the names of Config fields they set).
COMMON_OPTIONS = ("data_dir", "database_url")


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """``--config``, ``--data-dir`` and ``--database-url`` on ``parser``."""
    parser.add_argument(
        "--config",
        help="a TOML configuration file (PBM_EMERGO_CONFIG; default "
        "/etc/pbm-emergo/pbm-emergo.toml where it exists)",
    )
    parser.add_argument("--data-dir", dest="data_dir", help="PBM_EMERGO_DATA_DIR")
    parser.add_argument(
        "--database-url", dest="database_url", help="PBM_EMERGO_DATABASE_URL (default: SQLite)"
    )


def config_for(args: argparse.Namespace, options: Iterable[str] = ()) -> Config:
    """The configuration a command runs with: the file, the environment, then its flags
    (``COMMON_OPTIONS`` and ``options``, Config field names; unset flags are ignored)."""
    names = (*COMMON_OPTIONS, *options)
    overrides = {name: getattr(args, name, None) for name in names}
    return load_config(overrides, config_file=getattr(args, "config", None))


class WrongDatabase(Exception):
    """The command was pointed at a database other than the configured one, or at none."""


def configured_database(args: argparse.Namespace) -> str | None:
    """The database the configuration file and the environment name (not the flags), None
    when they name none (the defaults)."""
    configured = load_config(config_file=getattr(args, "config", None))
    default = Config()
    if configured.effective_database_url == default.effective_database_url:
        return None
    return configured.effective_database_url


def checked_config(args: argparse.Namespace, options: Iterable[str] = ()) -> Config:
    """:func:`config_for`, for a command that works on the server's existing database
    (``admin``): refused (:class:`WrongDatabase`) when ``--database-url`` or ``--data-dir``
    names another database than the configuration file and the environment do, and when
    the SQLite database it names does not exist (it is never created here: an empty one
    would only hide that the settings were not the server's)."""
    config = config_for(args, options)
    configured = configured_database(args)
    if configured is not None and configured != config.effective_database_url:
        raise WrongDatabase(
            f"--database-url/--data-dir name {_safe_url(config.effective_database_url)}, but "
            f"the configuration ({_sources(args)}) names {_safe_url(configured)}: run it "
            "without them, or with --config of the server whose database that is"
        )
    if config.is_embedded_database:
        path = Path(config.effective_database_url.removeprefix("sqlite:///"))
        if not path.exists():
            raise WrongDatabase(
                f"there is no database at {path} (settings read: {_sources(args)}): give the "
                "server's --config (or PBM_EMERGO_CONFIG, PBM_EMERGO_DATABASE_URL), or run "
                "`pbm-emergo db upgrade` to make a new one"
            )
    return config


def _sources(args: argparse.Namespace) -> str:
    path = config_file_path(getattr(args, "config", None))
    file = f"the file {path}" if path is not None else "no configuration file"
    named = sorted(ENV_PREFIX + f.name.upper() for f in dataclasses.fields(Config)
                   if os.environ.get(ENV_PREFIX + f.name.upper()))
    return f"{file}, then {', '.join(named) if named else 'no PBM_EMERGO_* variable'}"


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


__all__ = ["COMMON_OPTIONS", "WrongDatabase", "add_config_options", "checked_config",
           "config_for", "configured_database"]
