"""tests/game decides on values only: no database, no session, no templates."""

from __future__ import annotations

import ast
from pathlib import Path

ALLOWED = ("pbm_emergo.game", "pbm_emergo.rules", "pbm_emergo.robot", "tests.game")


def test_the_game_tests_import_only_the_core_and_the_standard_library() -> None:
    for path in sorted(Path(__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.startswith(("pbm_emergo", "tests")):
                    assert name.startswith(ALLOWED), f"{path.name} imports {name}"
                else:
                    assert name.split(".")[0] not in {"sqlalchemy", "jinja2"}, (
                        f"{path.name} imports {name}"
                    )
