"""The shape of the package, beside the import-linter contracts: the pure centre imports
nothing but Python, and no module imports itself through others."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import grimp
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pbm_emergo"
#: The pure centre, and which of our own packages each may import.
PURE = {
    "rules": {"rules"},
    "robot": {"rules", "robot"},
    "game": {"rules", "robot", "game"},
}


def imported_names(path: Path) -> set[str]:
    """Every module ``path`` imports, wherever the import stands (functions, TYPE_CHECKING);
    relative imports as ``pbm_emergo.<package>``."""
    names: set[str] = set()
    tree = ast.parse(path.read_text(), filename=str(path))
    package = path.relative_to(PACKAGE.parent).parts[1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                names.add(f"pbm_emergo.{package}")
            elif node.module:
                names.add(node.module)
    return names


@pytest.mark.parametrize("package", sorted(PURE))
def test_the_pure_centre_imports_only_the_standard_library_and_itself(package: str) -> None:
    modules = sorted((PACKAGE / package).rglob("*.py"))
    assert modules
    for module in modules:
        for name in imported_names(module):
            top = name.split(".")[0]
            if top == "pbm_emergo":
                ours = name.split(".")[1] if "." in name else ""
                assert ours in PURE[package], f"{module.name} imports {name}"
            else:
                assert top in sys.stdlib_module_names or top == "__future__", (
                    f"{module.name} imports {name}, which is not in the standard library"
                )


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``edges`` (Tarjan's strongly connected components of more than
    one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in edges.get(module, ()):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                popped = stack.pop()
                on_stack.discard(popped)
                component.append(popped)
                if popped == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(edges)))
    try:
        for module in sorted(edges):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return cycles


def test_strongly_connected_finds_a_cycle_through_three_modules() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(edges) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_through_others() -> None:
    # Imports inside functions count (they only put the cycle off until run time); those
    # under TYPE_CHECKING do not (they never run).
    graph = grimp.build_graph("pbm_emergo", exclude_type_checking_imports=True)
    edges = {
        module: {m for m in graph.find_modules_directly_imported_by(module)
                 if m.startswith("pbm_emergo.")}
        for module in graph.modules
    }
    assert strongly_connected(edges) == []
