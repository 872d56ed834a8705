"""The documentation site builds with ``mkdocs build --strict`` and documents every module.

``mkdocs build --strict`` fails on any warning: a broken link or anchor, a page missing from
the navigation, a docstring mkdocstrings cannot parse (a parameter that is not in the
signature, say). The API reference must hold a page for every public module, each in the
reference format (signature, then parameter tables with types and defaults).
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

from tests.docs.site_build import ROOT

pytestmark = pytest.mark.slow


def _api_hook():
    spec = importlib.util.spec_from_file_location("mkdocs_api", ROOT / "tools" / "mkdocs_api.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mkdocs_api", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(built_site: pathlib.Path) -> pathlib.Path:
    return built_site


def test_every_public_module_has_an_api_page(site: pathlib.Path):
    modules = _api_hook().public_modules()
    assert len(modules) > 100, f"the module walk found only {len(modules)} modules"
    for expected in ("horizax", "horizax.vector", "horizax.grid.environment", "horizax.maze"):
        assert expected in modules, f"{expected} is not in the API reference"
    missing = []
    for module in modules:
        page = site / "api" / pathlib.Path(*module.split(".")) / "index.html"
        if not page.is_file() or f'id="{module}"' not in page.read_text(encoding="utf-8"):
            missing.append(module)
    assert not missing, f"API pages missing or without their module's heading: {missing}"


def test_api_pages_have_signatures_and_parameter_tables(site: pathlib.Path):
    html = (site / "api" / "horizax" / "vector" / "index.html").read_text(encoding="utf-8")
    assert "doc-signature" in html, "VectorEnv's signature is not rendered"
    # The table format: one row per parameter with its type and default.
    assert "<th>Default</th>" in html and "<code>num_envs</code>" in html, "no parameter table"
    assert "Raises:" in html or "<th>Type</th>" in html, "no raises or types table"


def test_family_pages_show_every_id_with_its_picture(site: pathlib.Path):
    import horizax

    pages = {
        "MiniGrid-": "gridworld",
        "BabyAI-": "gridworld",
        "Maze-": "maze",
        "Orbital-": "orbital",
    }
    html = {
        name: (site / name / "index.html").read_text(encoding="utf-8") for name in pages.values()
    }
    for env_id in horizax.registered_ids():
        page = next(name for prefix, name in pages.items() if env_id.startswith(prefix))
        assert f'src="../images/envs/{env_id}.png"' in html[page], f"{page} lacks {env_id}"
