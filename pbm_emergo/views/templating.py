"""Reply texts: the Jinja environment that renders every mail the server writes.

The templates live in the top-level ``templates/`` folder of the source tree, one file per
kind of reply (``help.txt.j2``, ``board.txt.j2``, ``error/illegal_move.txt.j2`` ...).
They are found through the package, never relative to the working directory: the build
maps the folder to the data package ``pbm_emergo.templates`` (``[tool.setuptools.package-dir]``
in pyproject.toml), which is where an installed wheel has it; else (a source checkout, an
editable install) ``templates`` next to the package directory. Set ``PBM_EMERGO_TEMPLATES`` to
use another folder, for instance reworded copies of the replies.

The environment is strict (an unknown variable is an error, never an empty string) and
keeps the trailing newline of each template. Board drawings come from
:func:`pbm_emergo.rules.render_board`, never from template logic.
"""

from __future__ import annotations

import importlib.util
import os
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from pbm_emergo.telemetry.sections import timed
from pbm_emergo.views import rendered
from pbm_emergo.views.fit import fit

_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def data_dir(package: str, folder: str) -> Path:
    """The folder of the data package ``package`` (a top-level ``folder`` of the source tree
    that the build maps into the package): where the package system finds it, else
    ``folder`` next to the package directory (a source checkout, an editable install)."""
    try:
        spec = importlib.util.find_spec(package)
    except ImportError:
        spec = None
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        if Path(location).is_dir():
            return Path(location)
    candidate = _PACKAGE_DIR.parent / folder
    if candidate.is_dir():
        return candidate
    raise FileNotFoundError(f"no {folder} folder: neither the package {package} nor {candidate}")


def template_dir() -> Path:
    """The folder the reply templates are read from."""
    override = os.environ.get("PBM_EMERGO_TEMPLATES")
    if override:
        return Path(override)
    return data_dir("pbm_emergo.templates", "templates")


@cache
def environment(folder: Path | None = None) -> Environment:
    """The Jinja environment for ``folder`` (default: :func:`template_dir`)."""
    env = Environment(
        loader=FileSystemLoader(str(folder or template_dir())),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # plain-text mail, never HTML
        finalize=rendered.mark_value,  # what is a value and what the template's own words
    )
    env.filters["indent_block"] = _indent_block
    env.filters["wordwrap"] = rendered.wordwrap
    return env


@cache
def html_environment(folder: Path | None = None) -> Environment:
    """The Jinja environment of the HTML templates (``*.html.j2``): as :func:`environment`,
    but every value is HTML-escaped unless it is already :class:`Markup`."""
    env = Environment(
        loader=FileSystemLoader(str(folder or template_dir())),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=True,
        finalize=rendered.mark_value,
    )
    env.filters["wordwrap"] = rendered.wordwrap
    return env


def render_html(name: str, **context: Any) -> Markup:
    """Render the HTML template ``name``; the result is safe to put into another one."""
    with timed("render"):
        return rendered.rendered_markup(html_environment().get_template(name).render(**context))


def _indent_block(text: str, prefix: str = "  ") -> str:
    """Indent every non-empty line of ``text`` by ``prefix``."""
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def render(name: str, **context: Any) -> str:
    """Render the template ``name`` (a path inside the templates folder): a
    :class:`~pbm_emergo.views.rendered.Rendered` text, which knows where its values are.
    Every line fits 72 columns (:func:`~pbm_emergo.views.fit.fit`)."""
    with timed("render"):
        return rendered.rendered(fit(environment().get_template(name).render(**context)))


def template_names() -> list[str]:
    """Every reply template, for tests that render each one."""
    return sorted(environment().list_templates(filter_func=lambda n: n.endswith(".j2")))
