"""The gettext catalogs: every message of the templates and the code is translated in every
locale, with the same placeholders, and the compiled catalogs are those of the sources."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterable
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Message
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from pbm_emergo.views import i18n
from pbm_emergo.views.i18n import speaking
from pbm_emergo.views.templating import render

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "pbm_emergo" / "locale"
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]
PLACEHOLDER = re.compile(r"%\((\w+)\)s|\{(\w+)\}")


def placeholders(text: str | tuple[str, ...]) -> set[str]:
    """The names of the placeholders of a message (of all its plural forms)."""
    texts = (text,) if isinstance(text, str) else text
    return {a or b for t in texts for a, b in PLACEHOLDER.findall(t)}


def test_the_template_is_what_the_sources_mark(tmp_path: Path) -> None:
    fresh = tmp_path / "messages.pot"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "extract",
            "-F",
            "babel.cfg",
            "--no-location",
            "--sort-output",
            "-o",
            str(fresh),
            ".",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with fresh.open("rb") as f:
        extracted = {m.id for m in read_po(f) if m.id}
    with (LOCALE / "messages.pot").open("rb") as f:
        committed = {m.id for m in read_po(f) if m.id}
    assert extracted == committed, "run pybabel extract and update (docs/development.md)"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_with_the_same_placeholders(lang: str) -> None:
    with (LOCALE / "messages.pot").open("rb") as f:
        template = {m.id for m in read_po(f) if m.id}
    with (LOCALE / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    messages = {m.id: m for m in catalog if m.id}
    assert set(messages) == template
    for msgid, message in messages.items():
        forms = (message.string,) if isinstance(message.string, str) else message.string
        assert forms and all(forms), f"{lang}: {msgid!r} is not translated"
        assert not message.fuzzy, f"{lang}: {msgid!r} is fuzzy"
        # Plural forms may leave out the count (one: "an address"); nothing else.
        wanted = placeholders(msgid) - ({"num", "count"} if message.pluralizable else set())
        assert wanted <= placeholders(message.string) <= placeholders(msgid), msgid


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalog_is_the_source_compiled(lang: str) -> None:
    folder = LOCALE / lang / "LC_MESSAGES"

    def pairs(messages: Iterable[Message]) -> dict[Any, Any]:
        # Plural forms come as lists from the one reader, tuples from the other.
        def same(v: Any) -> Any:
            return tuple(v) if isinstance(v, list | tuple) else v

        return {same(m.id): same(m.string) for m in messages if m.id}

    with (folder / "messages.po").open("rb") as f:
        source = pairs(read_po(f, locale=lang))
    compiled = pairs(read_mo(BytesIO((folder / "messages.mo").read_bytes())))
    assert compiled == source, "run pybabel compile -d pbm_emergo/locale"


def test_a_reply_is_rendered_in_the_locale_it_is_spoken_in() -> None:
    context = {
        "usage": "language USERID PASSWORD LANG",
        "folded": False,
        "reason": "r",
        "command": "language bob",
        "board": None,
        "board_text": None,
    }
    english = render("error/usage.txt.j2", **context)
    with speaking("de"):
        german = render("error/usage.txt.j2", **context)
    with speaking("nl"):
        dutch = render("error/usage.txt.j2", **context)
    assert "Write it like this:" in english
    assert "Schreibe es so:" in german and "Write it like this" not in german
    assert "Schrijf het zo:" in dutch
    # Command words stay English.
    assert "language USERID PASSWORD LANG" in german


def test_values_in_a_translated_sentence_are_still_values() -> None:
    with speaking("fr"):
        text = render("help.txt.j2", unknown_topic="zzz", address="emergo@example.org", commands=[])
    assert text.startswith("Il n'y a pas de rubrique d'aide 'zzz'")
    spans = getattr(text, "spans", None)
    assert spans and any(text[a:b] == "zzz" for a, b in spans)
    assert all(text[a:b] != "Il n'y a pas" for a, b in spans)


@pytest.mark.parametrize(
    "tag, expected",
    [
        ("nl", "nl"),
        ("de-CH", "de"),
        ("FR_be", "fr"),
        ("Deutsch", "de"),
        ("es", None),
        ("", None),
    ],
)
def test_language_tags(tag: str, expected: str | None) -> None:
    assert i18n.supported(tag) == expected
