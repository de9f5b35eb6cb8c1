"""The shape of the package, beside the import-linter contracts: the pure centre imports
nothing but Python, and no module imports itself through others."""

from __future__ import annotations

import ast
import re
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
    # Imports inside functions count (they only put the cycle off until run time), and so
    # do those under TYPE_CHECKING: a type that names its importer ties the two as much.
    graph = grimp.build_graph("pbm_emergo", exclude_type_checking_imports=False)
    edges = {
        module: {m for m in graph.find_modules_directly_imported_by(module)
                 if m.startswith("pbm_emergo.")}
        for module in graph.modules
    }
    assert strongly_connected(edges) == []


def returned_names(annotation: ast.expr) -> set[str]:
    """The names in a return annotation (a string annotation's words too)."""
    names = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}
    for constant in ast.walk(annotation):
        if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
            names |= set(re.findall(r"\w+", constant.value))
    return names


def row_handing_functions() -> set[tuple[str, str]]:
    """The public functions of ``db/`` whose return type names a class of the data model
    (``db/models.py``): (module, function)."""
    models_tree = ast.parse((PACKAGE / "db" / "models.py").read_text())
    models = {node.name for node in models_tree.body if isinstance(node, ast.ClassDef)}
    found: set[tuple[str, str]] = set()
    for path in sorted((PACKAGE / "db").rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for node in ast.parse(path.read_text()).body:
            if (
                isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
                and node.returns is not None
                and returned_names(node.returns) & models
            ):
                found.add((module, node.name))
    return found


def calls_from_outside(handing: set[tuple[str, str]], path: Path) -> list[str]:
    """The functions of ``handing`` that the module ``path`` names: imported by name, or
    reached as an attribute of their module imported as a name (each function's imports
    hold in it and the functions inside it)."""
    named: list[str] = []
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef)

    def own_nodes(scope: ast.AST) -> list[ast.AST]:
        """The nodes of ``scope`` outside the functions defined in it."""
        found: list[ast.AST] = []
        todo = list(ast.iter_child_nodes(scope))
        while todo:
            node = todo.pop()
            found.append(node)
            if not isinstance(node, scopes):
                todo.extend(ast.iter_child_nodes(node))
        return found

    def visit(scope: ast.AST, outer: dict[str, str]) -> None:
        modules_as = dict(outer)  # a local name -> the module it stands for
        nodes = own_nodes(scope)
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if (node.module, alias.name) in handing:
                        named.append(f"{node.module}.{alias.name}")
                    modules_as[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        modules_as[alias.asname] = alias.name
        for node in nodes:
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                module = modules_as.get(node.value.id)
                if module is not None and (module, node.attr) in handing:
                    named.append(f"{module}.{node.attr}")
            elif isinstance(node, scopes):
                visit(node, modules_as)

    visit(ast.parse(path.read_text()), {})
    return named


def test_the_row_handing_functions_are_found(tmp_path: Path) -> None:
    handing = row_handing_functions()
    assert ("pbm_emergo.db.games", "get_board") in handing  # -> Board | None
    assert ("pbm_emergo.db.outbox", "enqueue_outbound") in handing  # -> OutboundMessage
    assert ("pbm_emergo.db.outbox", "outbound_by_ids") not in handing  # values
    fake = tmp_path / "example.py"
    fake.write_text(
        "from pbm_emergo.db import games as g\n"
        "def f(s):\n"
        "    from pbm_emergo.db.outbox import enqueue_outbound\n"
        "    return g.get_board(s, 1), enqueue_outbound\n"
        "def h(s):\n"
        "    from pbm_emergo.app import games as g\n"
        "    return g.get_board(s, 1)\n"
    )
    assert sorted(calls_from_outside(handing, fake)) == [
        "pbm_emergo.db.games.get_board", "pbm_emergo.db.outbox.enqueue_outbound"
    ]


def test_no_row_object_leaves_db() -> None:
    """The rest of the server gets values of ``db/`` (its reads, ``ClaimedMail``,
    ``ClaimedOutbound``), never a row's object: no module outside ``db/`` calls a function
    of it that returns one (those serve ``db/`` itself, the tests and the benches)."""
    handing = row_handing_functions()
    found = {
        str(path.relative_to(PACKAGE.parent)): named
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "db"
        for named in [calls_from_outside(handing, path)]
        if named
    }
    assert found == {}
