"""The README and docs/ link where they say: each relative link names a file of the
repository and, into a Markdown file, one of its headings; the README links only into the
repository (and the web view it starts on the reader's machine). (The rules for players
link to the web view's own pages, which the web view serves them beside.)"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from pbm_emergo.views.player_rules import anchored

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# The pages the web view renders (pbm_emergo/web/rules.py), whose links to its routes
# ("/rules/engine") are right there.
SERVED = re.compile(r"rules(-for-players(\.\w+)?)?\.md")


@cache
def parsed(path: Path) -> tuple[set[str], list[str]]:
    """A Markdown file read as the web view reads Markdown (markdown-it): the anchors of its
    headings, as GitHub makes them (lower case, the punctuation but hyphens and underscores
    taken out, spaces made hyphens, a repeated one numbered) and the ids some are given
    (``{#id}``, :func:`~pbm_emergo.views.player_rules.anchored`: the web view's); and the
    targets of its links (none in code)."""
    text, given = anchored(path.read_text(encoding="utf-8"))
    found = set(given.values())
    seen: dict[str, int] = {}
    targets = []
    tokens = MarkdownIt("js-default").parse(text)
    for token, following in zip(tokens, tokens[1:], strict=False):
        if token.type == "heading_open":
            slug = re.sub(r"[^\w\- ]", "", following.content.strip().lower()).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
        elif token.type == "inline":
            targets += [str(child.attrs["href"]) for child in token.children or ()
                        if child.type == "link_open"]
    return found, targets


def anchors(path: Path) -> set[str]:
    return parsed(path)[0]


def links(path: Path) -> list[str]:
    return parsed(path)[1]


def broken(path: Path, root: Path = ROOT) -> list[str]:
    """The relative links of ``path`` that name no file of ``root``, or no heading of it."""
    wrong = []
    for link in links(path):
        if re.match(r"[a-z]+:", link) or (link.startswith("/") and SERVED.fullmatch(path.name)):
            continue
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        if not file.is_relative_to(root) or not file.exists():
            wrong.append(f"{link}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            wrong.append(f"{link}: no such heading")
    return wrong


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_each_link_names_a_file_and_a_heading_there(path: Path) -> None:
    assert broken(path) == []


def test_the_readme_links_only_into_the_repository() -> None:
    # ... and to the web view it starts on the reader's own machine.
    assert [
        link for link in links(ROOT / "README.md")
        if re.match(r"[a-z]+:", link) and not re.match(r"http://(127\.0\.0\.1|localhost)[:/]", link)
    ] == []


def test_a_wrong_file_or_heading_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# One title\n\n## Twice\n\n## Twice\n\n## Mine {#own}\n")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#one-title) [ok](a.md#twice-1) [ok](a.md#own) [ok](#here)\n"
        "[bad](a.md#two-titles) [bad](c.md) [ok](https://example.org/x)\n\n# Here\n"
    )
    assert anchors(tmp_path / "a.md") == {"one-title", "twice", "twice-1", "mine", "own"}
    assert broken(page, tmp_path) == ["a.md#two-titles: no such heading", "c.md: no such file"]
