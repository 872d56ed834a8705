"""mkdocs hook: one API reference page per public horizax module, generated at build time.

A module is public when no part of its dotted name starts with an underscore. Each page holds
only a mkdocstrings directive (``::: horizax.grid.environment``), so the reference always
renders the docstrings of the checkout being built; nothing generated is kept in git. The
"API reference" section of the navigation mirrors the package tree.
"""

from __future__ import annotations

import ast
import pathlib
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "horizax"
API_DIR = "api"


def public_modules() -> list[str]:
    """Dotted names of horizax's public modules and packages, sorted."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts):
            continue
        names.append(".".join(parts))
    return sorted(names)


def _page_path(module: str) -> str:
    return f"{API_DIR}/{module.replace('.', '/')}.md"


def _summary(module: str) -> str:
    """The first line of a module's docstring, read without importing it."""
    parts = module.split(".")
    path = PACKAGE.parent.joinpath(*parts)
    # A module beside a data folder of its name (grid/wfc/patterns.py and patterns/) is the file.
    module_file = path.with_suffix(".py")
    source = module_file if module_file.is_file() else path / "__init__.py"
    docstring = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or ""
    return docstring.strip().splitlines()[0] if docstring.strip() else ""


def _nav(modules: list[str]) -> list[Any]:
    """Nested navigation: one section per subpackage, the package's own page first."""
    tree: dict[str, Any] = {}
    for module in modules:
        node = tree
        for part in module.split(".")[1:]:
            node = node.setdefault(part, {})
        node[""] = module

    def build(name: str, node: dict[str, Any]) -> Any:
        children = [build(key, child) for key, child in node.items() if key]
        if not children:
            return {name: _page_path(node[""])}
        own = [{node[""]: _page_path(node[""])}] if "" in node else []
        return {name: own + children}

    top = [{"horizax": _page_path("horizax")}] + [
        build(key, child) for key, child in tree.items() if key
    ]
    return [f"{API_DIR}/index.md", *top]


def on_config(config: Any) -> Any:
    """Appends the "API reference" section to the navigation."""
    config["nav"].append({"API reference": _nav(public_modules())})
    return config


def on_files(files: Files, config: Any) -> Files:
    """Adds the generated pages: an index table and one page per module."""
    modules = public_modules()
    rows = "\n".join(
        f"| [`{module}`]({module.replace('.', '/')}.md) | {_summary(module)} |"
        for module in modules
    )
    index = (
        "# API reference\n\n"
        "Generated from the docstrings of every public module: signatures, parameter "
        "tables with types and defaults, returns, raises and examples.\n\n"
        f"| module | what it holds |\n|---|---|\n{rows}\n"
    )
    files.append(File.generated(config, f"{API_DIR}/index.md", content=index))
    for module in modules:
        content = f"::: {module}\n"
        files.append(File.generated(config, _page_path(module), content=content))
    return files
