"""The import graph of src/horizax, read statically: no cycles, and arrows that point one way.

Every ``import`` and ``from ... import`` of a horizax module counts, at module level or inside
a function (a function-level import is still an arrow between the modules; it only hides a
cycle from the interpreter). An edge goes to the module named, not to its parent packages.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _module_names() -> dict[Path, str]:
    names = {}
    for path in sorted((SRC / "horizax").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[path] = ".".join(parts)
    return names


def _imported(node: ast.AST, module: str, is_package: bool, modules: set[str]) -> list[str]:
    """The horizax modules one import statement names (relative imports resolved)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in modules]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    out = []
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        if submodule in modules:
            out.append(submodule)
        elif base in modules:
            out.append(base)
    return out


def import_graph() -> dict[str, set[str]]:
    """``{module: modules it imports}`` over every module of src/horizax."""
    names = _module_names()
    modules = set(names.values())
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for path, module in names.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            graph[module].update(_imported(node, module, is_package, modules))
        graph[module].discard(module)
    return graph


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _describe(components: set[frozenset[str]]) -> list[list[str]]:
    return sorted(sorted(component) for component in components)


def test_the_graph_is_read_from_every_module():
    """A reader that missed imports would pass the checks below vacuously."""
    graph = import_graph()
    assert "horizax.grid.sampling" in graph["horizax.grid.envs.doorkey"]
    assert "horizax.grid.registry" in graph["horizax.families"]  # an import inside a function
    assert "horizax.core.registry" in graph["horizax"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {frozenset("abc")}


def test_no_import_cycles():
    """Arrows point one way: a cycle means two modules that cannot be understood apart."""
    found = cycles(import_graph())
    assert not found, f"import cycles: {_describe(found)}"


def test_core_imports_no_family_and_no_adapter():
    """core is what every family shares: it never names a family or an adapter."""
    forbidden = ("horizax.grid", "horizax.maze", "horizax.adapters")
    graph = import_graph()
    arrows = sorted(
        (module, target)
        for module, targets in graph.items()
        if module == "horizax.core" or module.startswith("horizax.core.")
        for target in targets
        if target.startswith(forbidden)
    )
    assert not arrows, f"core imports: {arrows}"


def test_adapters_convert_spaces_never_families():
    """An adapter that names a family would need a new branch for every new family."""
    graph = import_graph()
    arrows = sorted(
        (module, target)
        for module, targets in graph.items()
        if module.startswith("horizax.adapters")
        for target in targets
        if target.startswith(("horizax.grid", "horizax.maze"))
    )
    assert not arrows, f"adapters import families: {arrows}"
