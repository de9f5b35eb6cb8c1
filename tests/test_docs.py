"""The README and docs/ link where they say: each relative link names a file of the
repository and, into a Markdown file, one of its headings; the README links only into the
repository. (The rules for players link to the web view's own pages, which the web view
serves them beside.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# The pages the web view renders (pbm_emergo/web/rules.py), whose links to its routes
# ("/rules/engine") are right there.
SERVED = re.compile(r"rules(-for-players(\.\w+)?)?\.md")

_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"(#{1,6})\s+(.*?)\s*$")
_ID = re.compile(r"\{#([\w-]+)\}\s*$")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub makes them (lower case, the
    punctuation but hyphens and underscores taken out, spaces made hyphens, a repeated one
    numbered), and the ids some are given (``{#id}``: the web view's anchors)."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading is None:
            continue
        title = heading.group(2)
        given = _ID.search(title)
        if given:
            found.add(given.group(1))
            title = title[: given.start()]
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(path: Path) -> list[str]:
    """The link targets of a Markdown file, outside its code blocks."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return _LINK.findall(text)


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
    assert [link for link in links(ROOT / "README.md") if re.match(r"[a-z]+:", link)] == []


def test_a_wrong_file_or_heading_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# One title\n\n## Twice\n\n## Twice\n\n## Mine {#own}\n")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#one-title) [ok](a.md#twice-1) [ok](a.md#own) [ok](#here)\n"
        "[bad](a.md#two-titles) [bad](c.md) [ok](https://example.org/x)\n\n# Here\n"
    )
    assert anchors(tmp_path / "a.md") == {"one-title", "twice", "twice-1", "mine", "own"}
    assert broken(page, tmp_path) == ["a.md#two-titles: no such heading", "c.md: no such file"]
