"""The README's environment table lists every registered MiniGrid id."""

import pathlib

import pytest

import horizax
from tests.markdown import python_blocks

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_lists_every_minigrid_id():
    text = README.read_text(encoding="utf-8")
    ids = [i for i in horizax.registered_ids() if i.startswith("MiniGrid-")]
    missing = [i for i in ids if f"`{i}`" not in text]
    assert not missing, f"README's environment table lacks {missing}"
    assert f"{len(ids)} ids" in text, "the README's id count is stale"


@pytest.mark.reference  # the adapters' block needs gymnasium, dm_env and torch
def test_readme_python_blocks_run_verbatim():
    blocks = python_blocks(README.read_text(encoding="utf-8"))
    assert len(blocks) >= 3, "expected the quick start, Maze and adapters examples"
    for number, block in enumerate(blocks):
        try:
            exec(compile(block, f"README.md python block {number}", "exec"), {})
        except Exception as error:  # pragma: no cover - the message is the point
            raise AssertionError(f"README python block {number} fails:\n{block}") from error
