"""The new users' pages run as written: the home page's quick start and the episode page."""

from __future__ import annotations

import pathlib

import pytest

from tests.markdown import python_blocks

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize(("page", "count"), [("index.md", 1), ("episode.md", 2)])
def test_python_blocks_run_verbatim(page: str, count: int):
    blocks = python_blocks((DOCS / page).read_text(encoding="utf-8"))
    assert len(blocks) == count, f"{page}: expected {count} python blocks, found {len(blocks)}"
    for number, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/{page} python block {number}", "exec"), {})
        except Exception as error:  # pragma: no cover - the message is the point
            raise AssertionError(f"docs/{page} python block {number} fails:\n{block}") from error
