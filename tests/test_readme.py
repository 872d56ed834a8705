"""The README's environment table lists every registered MiniGrid id."""

import pathlib

import horizax

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_lists_every_minigrid_id():
    text = README.read_text(encoding="utf-8")
    ids = [i for i in horizax.registered_ids() if i.startswith("MiniGrid-")]
    missing = [i for i in ids if f"`{i}`" not in text]
    assert not missing, f"README's environment table lacks {missing}"
    assert f"{len(ids)} ids" in text, "the README's id count is stale"
