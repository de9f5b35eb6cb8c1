"""Reply texts: the Jinja environment that renders every mail the server writes.

The templates live in the top-level ``templates/`` folder of the source tree, one file per
kind of reply (``help.txt.j2``, ``board.txt.j2``, ``error/illegal_move.txt.j2`` ...).
They are found through the package, never relative to the working directory: the build
maps the folder to the data package ``pbm_emergo.templates`` (``[tool.setuptools.package-dir]``
in pyproject.toml), which is where an installed wheel has it; else (a source checkout, an
editable install) ``templates`` next to the package directory. Set ``PBM_EMERGO_TEMPLATES`` to
use another folder, for instance reworded copies of the replies. A template is read once a
process: a running server picks up a changed one when it restarts.

The environment is strict (an unknown variable is an error, never an empty string) and
keeps the trailing newline of each template. Each locale has its own environment, with
Jinja's i18n extension and that locale's catalog (:mod:`pbm_emergo.views.i18n`):
:func:`render` renders in the locale the reply is written in. Board drawings come from
:func:`pbm_emergo.rules.render_board`, never from template logic.
"""

from __future__ import annotations

import importlib.util
import os
from functools import cache
from pathlib import Path
from typing import Any

from babel.support import NullTranslations
from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from pbm_emergo.telemetry.sections import timed
from pbm_emergo.views import i18n, rendered
from pbm_emergo.views.fit import WIDTH, fit, wordwrap

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
def environment(folder: Path | None = None, locale: str = i18n.DEFAULT) -> Environment:
    """The Jinja environment for ``folder`` (default: :func:`template_dir`), its
    ``{% trans %}`` blocks in ``locale``."""
    env = Environment(
        loader=FileSystemLoader(str(folder or template_dir())),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # plain-text mail, never HTML
        finalize=rendered.mark_value,  # what is a value and what the template's own words
        extensions=["jinja2.ext.i18n"],
        # Each template is read once a process: no look at its file's time on every
        # render (a server picks up changed templates when it restarts).
        auto_reload=False,
    )
    install_translations(env, i18n.translations(locale))
    env.filters["indent_block"] = _indent_block
    env.filters["wordwrap"] = wordwrap
    return env


@cache
def html_environment(folder: Path | None = None, locale: str = i18n.DEFAULT) -> Environment:
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
        extensions=["jinja2.ext.i18n"],
        auto_reload=False,
    )
    install_translations(env, i18n.translations(locale))
    env.filters["wordwrap"] = wordwrap
    return env


def install_translations(
    env: Environment, translations: NullTranslations, *, mark: bool = True
) -> None:
    """Give ``env``'s ``{% trans %}`` blocks (and ``_()``) the catalog ``translations``.

    New-style gettext (the block's variables as keyword arguments, ``%(name)s`` in the
    catalogs), with each variable marked as a value while the sentence around it stays the
    template's own words (:mod:`pbm_emergo.views.rendered`): a translated sentence must not
    hide where its values are from the secrets' scrubber. ``mark=False``: an environment
    whose output is not unmarked (the web pages), the values put in as they are."""

    def words(context: Context, text: str, variables: dict[str, Any]) -> str:
        if not mark:
            if context.eval_ctx.autoescape:
                return Markup(text) % variables
            return text % variables
        if context.eval_ctx.autoescape:
            # Each value escaped here, so the sentence (the template's own markup) takes
            # them with plain formatting, as Markup's would after escaping them again.
            escaped = {k: rendered.marked_value(escape(v)) for k, v in variables.items()}
            return rendered.TemplateMarkup(text % escaped)
        marked = {k: rendered.marked_value(v) for k, v in variables.items()}
        return rendered.TemplateWords(text % marked)

    @pass_context
    def gettext(context: Context, message: str, **variables: Any) -> str:
        return words(context, translations.gettext(message), variables)

    @pass_context
    def ngettext(
        context: Context, singular: str, plural: str, num: int, **variables: Any
    ) -> str:
        variables.setdefault("num", num)
        return words(context, translations.ngettext(singular, plural, num), variables)

    @pass_context
    def pgettext(context: Context, where: str, message: str, **variables: Any) -> str:
        # A word that reads differently where it stands (a table's column: short).
        return words(context, str(translations.pgettext(where, message)), variables)

    env.newstyle_gettext = True  # type: ignore[attr-defined]
    env.globals.update(gettext=gettext, ngettext=ngettext, pgettext=pgettext, _=gettext)


def _marked_html(name: str, context: dict[str, Any]) -> str:
    """The HTML template ``name`` rendered in the current locale, its values marked."""
    return html_environment(None, i18n.current()).get_template(name).render(**context)


def render_html(name: str, **context: Any) -> Markup:
    """Render the HTML template ``name`` in the current locale; the result is safe to put
    into another one."""
    with timed("render"):
        return rendered.rendered_markup(_marked_html(name, context))


def render_html_part(name: str, **context: Any) -> Markup:
    """As :func:`render_html`, for a part that only ever goes into another HTML template
    (a board's section of a board mail): its values stay marked, so that the document it
    goes into finds them without the marks being read, taken out and put back in between.
    Never a text to send as it is."""
    with timed("render"):
        return rendered.TemplateMarkup(_marked_html(name, context))


def _indent_block(text: str, prefix: str = "  ") -> str:
    """Indent every non-empty line of ``text`` by ``prefix``, fitted first to the columns
    left (a `multiple` report's answers): fitted again once indented, its wrapped lines
    would hang as if the whole text were a list."""
    fitted = fit(text, WIDTH - len(prefix))
    return "\n".join(prefix + line if line else line for line in fitted.splitlines())


def render(name: str, **context: Any) -> str:
    """Render the template ``name`` (a path inside the templates folder), in the locale of
    the reply (:func:`pbm_emergo.views.i18n.current`): a
    :class:`~pbm_emergo.views.rendered.Rendered` text, which knows where its values are.
    Every line fits 72 columns (:func:`~pbm_emergo.views.fit.fit`)."""
    with timed("render"):
        template = environment(None, i18n.current()).get_template(name)
        return rendered.rendered(fit(template.render(**context)))


def template_names() -> list[str]:
    """Every reply template, for tests that render each one."""
    return sorted(environment().list_templates(filter_func=lambda n: n.endswith(".j2")))


def render_in(language: str | None, name: str, **context: Any) -> str:
    """:func:`render` in ``language`` (a player's chosen one; None: English): a mail to
    someone other than the sender is written in the recipient's language."""
    with i18n.speaking(language):
        return render(name, **context)
