"""Every refusal a player reads goes through the catalogs: no ``Refused`` of the
application shell is made of an English literal or f-string, which no translation could
reach. The operator's own commands (the support cases, ``admin event start``) answer in
English on purpose."""

from __future__ import annotations

import ast
from pathlib import Path

import pbm_emergo.app

APP = Path(pbm_emergo.app.__file__).parent
# The operator's: answered in English (docs/commands.md, "Replies in the player's language").
OPERATORS = {("support.py", None), ("events.py", "start_now")}
# Joined of sentences translated one by one (the player's name, then similar names).
JOINED = {("accounts.py", "no_such_player")}


def english_refusals(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        skipped = OPERATORS | JOINED
        if (path.name, None) in skipped or (path.name, function.name) in skipped:
            continue
        for node in ast.walk(function):
            if not (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("Refused")):
                continue
            for arg in node.args[:1]:
                literal = isinstance(arg, ast.JoinedStr) or (
                    isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value
                )
                if literal:
                    found.append(f"{path.name}:{node.lineno} ({function.name})")
    return found


def test_no_refusal_of_the_shell_is_an_english_literal() -> None:
    found = sorted({hit for path in APP.rglob("*.py") for hit in english_refusals(path)})
    assert found == []


def test_the_check_finds_an_english_refusal(tmp_path: Path) -> None:
    module = tmp_path / "play.py"
    module.write_text(
        "def f(x):\n    raise Refused(f'No board {x}.')\n\n"
        "def g(x):\n    raise Refused(i18n._('No board %(x)s.', x=x))\n"
    )
    assert english_refusals(module) == ["play.py:2 (f)"]
