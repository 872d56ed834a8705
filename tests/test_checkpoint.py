"""horizax.checkpoint: exact round trips, mid-episode resume in a fresh process for every
family (batched and not, across an autoreset), and a named error for every mismatch."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import zipfile

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax import checkpoint
from tests import checkpoint_cases

ROOT = pathlib.Path(__file__).resolve().parents[1]


def assert_trees_equal(got, want, what):
    """Same structure, and every leaf equal in shape, dtype and value (typed keys by data)."""
    assert jax.tree.structure(got) == jax.tree.structure(want), f"{what}: structure"
    flat = jax.tree_util.tree_flatten_with_path(want)[0]
    for (path, w), g in zip(flat, jax.tree.leaves(got), strict=True):
        name = f"{what}{jax.tree_util.keystr(path)}"
        assert type(g) is type(w) or isinstance(g, jax.Array), f"{name}: {type(g)} != {type(w)}"
        if isinstance(w, bool | int | float):
            assert g == w, name
            continue
        assert np.shape(g) == np.shape(w) and g.dtype == w.dtype, f"{name}: shape or dtype"
        if jnp.issubdtype(w.dtype, jax.dtypes.prng_key):
            g, w = jax.random.key_data(g), jax.random.key_data(w)
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=name)


# --- every family resumes mid-episode in a fresh process ---------------------------------------


def test_every_family_resumes_mid_episode_in_a_fresh_process(tmp_path):
    """N steps, save, M steps in a new interpreter == N + M steps straight, leaf for leaf
    (states, keys, observations, rewards, step types and flags), an episode ending and the
    next one starting in the M part."""
    N = checkpoint_cases.N
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    # Started first: it compiles from shapes while this process computes the checkpoints.
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.checkpoint_cases", str(tmp_path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        expected = {}
        for case in checkpoint_cases.cases():
            trees = checkpoint_cases.run(case.step, case.start(), case.actions)
            assert not case.ended(trees[N - 1]).any(), f"{case.name}: saved mid-episode"
            assert any(case.ended(t).any() for t in trees[N:]), f"{case.name}: no end after"
            checkpoint.save(tmp_path / f"{case.name}.ckpt", trees[N - 1], env_id=case.env_id)
            expected[case.name] = checkpoint_cases.stack(trees[N:])
        _, stderr = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, f"the resuming process failed:\n{stderr}"
    for name, want in expected.items():
        got = checkpoint.load(tmp_path / f"{name}.out", like=want)
        assert_trees_equal(got, want, name)


# --- round trips --------------------------------------------------------------------------------


def _zoo():
    return {
        "fry": jax.random.split(jax.random.key(3), (2, 3)),
        "rbg": jax.random.key(1, impl="rbg"),
        "raw": jax.random.split(jax.random.PRNGKey(2), 4),
        "flags": jnp.array([True, False]),
        "ints": (jnp.arange(3, dtype=jnp.int8), jnp.uint32(7), jnp.int32(-5)),
        "floats": [jnp.float32(1.5), jnp.linspace(0, 1, 5, dtype=jnp.float16)],
        "bf16": jnp.arange(4, dtype=jnp.bfloat16) / 3,
        "host": {"f64": np.linspace(0, 1, 3), "scalar": np.float64(2.5), "empty": np.zeros((0, 2))},
        "python": (3, 2.5, True),
        "nothing": None,
        "no_leaves": {},
    }


def test_every_leaf_kind_round_trips_exactly(tmp_path):
    tree = _zoo()
    checkpoint.save(tmp_path / "zoo.ckpt", tree)
    assert_trees_equal(checkpoint.load(tmp_path / "zoo.ckpt", like=tree), tree, "zoo")
    for kind in ("fry", "rbg"):
        got = checkpoint.load(tmp_path / "zoo.ckpt", like=tree)[kind]
        assert jax.random.key_impl(got) == jax.random.key_impl(tree[kind]), "key impl kept"


def test_an_abstract_like_gives_jax_arrays(tmp_path):
    tree = {k: v for k, v in _zoo().items() if k not in ("host", "python")}
    checkpoint.save(tmp_path / "zoo.ckpt", tree)
    got = checkpoint.load(tmp_path / "zoo.ckpt", like=jax.eval_shape(lambda: tree))
    assert all(isinstance(x, jax.Array) for x in jax.tree.leaves(got)), "jax arrays back"
    assert_trees_equal(got, tree, "abstract")


def test_float64_round_trips_with_x64_and_is_refused_as_jax_without(tmp_path):
    with jax.enable_x64(True):
        tree = {"x": jnp.linspace(0, 1, 3, dtype=jnp.float64), "i": jnp.int64(2**40)}
        checkpoint.save(tmp_path / "x64.ckpt", tree)
        assert_trees_equal(checkpoint.load(tmp_path / "x64.ckpt", like=tree), tree, "x64")
        abstract = jax.eval_shape(lambda: tree)
    with pytest.raises(ValueError, match=r"\['i'\].*jax_enable_x64"):
        checkpoint.load(tmp_path / "x64.ckpt", like=abstract)


def test_the_manifest_records_versions_structure_and_metadata(tmp_path):
    tree = {"a": jnp.zeros((2, 3), jnp.uint8), "key": jax.random.key(0)}
    metadata = {"run": "r1", "step": 100}
    checkpoint.save(tmp_path / "m.ckpt", tree, env_id="Maze-v0", metadata=metadata)
    manifest = checkpoint.read_manifest(tmp_path / "m.ckpt")
    assert manifest["format_version"] == checkpoint.FORMAT_VERSION
    assert manifest["horizax_version"] == horizax.__version__
    assert manifest["env_id"] == "Maze-v0" and manifest["metadata"] == metadata
    assert manifest["treedef"] == str(jax.tree.structure(tree))
    assert [(e["path"], e["shape"], e["dtype"]) for e in manifest["leaves"]] == [
        ("['a']", [2, 3], "uint8"),
        ("['key']", [], "key<fry>"),
    ]
    assert manifest["leaves"][1]["key_impl"] == "threefry2x32"
    assert sorted(np.load(tmp_path / "m.ckpt").files)[0] == "leaves/0", "numpy can read it"


def test_save_replaces_atomically_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "state.ckpt"
    checkpoint.save(path, {"x": jnp.arange(3)})
    checkpoint.save(path, {"x": jnp.arange(3) + 1})  # overwrites
    assert os.listdir(tmp_path) == ["state.ckpt"]

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np.lib.format, "write_array", crash)
    with pytest.raises(OSError, match="disk full"):
        checkpoint.save(path, {"x": jnp.arange(3) + 2})
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["state.ckpt"], "a failed save cleans up its temporary"
    got = checkpoint.load(path, like={"x": jnp.arange(3)})
    np.testing.assert_array_equal(got["x"], [1, 2, 3], "the previous checkpoint is intact")


# --- a named error rather than a wrong state ----------------------------------------------------

STATE = {"pos": jnp.array([1, 2], jnp.int32), "done": jnp.bool_(False), "key": jax.random.key(0)}


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "state.ckpt"
    checkpoint.save(path, STATE, env_id="MiniGrid-Empty-5x5-v0")
    return path


def test_another_env_id_is_refused(saved):
    with pytest.raises(ValueError, match="'MiniGrid-Empty-5x5-v0', not 'Maze-v0'"):
        checkpoint.load(saved, like=STATE, env_id="Maze-v0")
    checkpoint.load(saved, like=STATE, env_id="MiniGrid-Empty-5x5-v0")
    checkpoint.load(saved, like=STATE)  # no id asked: none checked


@pytest.mark.parametrize(
    ("like", "message"),
    [
        ({**STATE, "pos": jnp.zeros(3, jnp.int32)}, r"\['pos'\]: shape \(2,\) saved, \(3,\)"),
        ({**STATE, "pos": jnp.zeros(2, jnp.int16)}, r"\['pos'\]: dtype int32 saved, int16"),
        ({**STATE, "key": jax.random.PRNGKey(0)}, r"\['key'\]: shape \(\) saved, \(2,\)"),
        ({**STATE, "key": jax.random.key(0, impl="rbg")}, "key<fry> saved, key<rbg>"),
        ({**STATE, "extra": jnp.int32(0)}, r"another structure.*like only: \[\"\['extra'\]\"\]"),
        ({"pos": STATE["pos"], "key": STATE["key"]}, r"file only: \[\"\['done'\]\"\]"),
        ((STATE["pos"], STATE["done"], STATE["key"]), "another structure"),
    ],
    ids=["shape", "dtype", "raw-key-for-typed", "key-impl", "extra-leaf", "missing-leaf", "tuple"],
)
def test_a_different_tree_is_refused_naming_the_difference(saved, like, message):
    with pytest.raises(ValueError, match=message):
        checkpoint.load(saved, like=like)


def test_another_horizax_version_is_refused_unless_allowed(tmp_path, monkeypatch):
    monkeypatch.setattr(horizax, "__version__", "0.0.1")
    checkpoint.save(tmp_path / "old.ckpt", STATE)
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"saved by horizax 0\.0\.1, this is horizax"):
        checkpoint.load(tmp_path / "old.ckpt", like=STATE)
    got = checkpoint.load(tmp_path / "old.ckpt", like=STATE, allow_version_mismatch=True)
    assert_trees_equal(got, STATE, "allowed")


def _rewrite_manifest(path, change):
    """The checkpoint at ``path`` with its manifest passed through ``change``."""
    with zipfile.ZipFile(path) as old:
        members = {name: old.read(name) for name in old.namelist()}
    manifest = json.loads(members["manifest.json"])
    change(manifest)
    members["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(path, "w") as new:
        for name, data in members.items():
            new.writestr(name, data)


def test_another_format_version_is_refused_even_when_allowed(saved):
    _rewrite_manifest(saved, lambda m: m.update(format_version=2))
    with pytest.raises(ValueError, match="format version 2; this horizax reads version 1"):
        checkpoint.load(saved, like=STATE, allow_version_mismatch=True)


def test_a_missing_file_names_its_path(tmp_path):
    path = tmp_path / "nowhere.ckpt"
    with pytest.raises(FileNotFoundError, match=r"nowhere\.ckpt"):
        checkpoint.load(path, like=STATE)
    with pytest.raises(FileNotFoundError, match="no_dir"):
        checkpoint.save(tmp_path / "no_dir" / "x.ckpt", STATE)


def test_a_tampered_file_is_refused(saved, tmp_path):
    data = saved.read_bytes()
    flipped = bytearray(data)
    flipped[data.rindex(b"\x93NUMPY") + 130] ^= 0xFF  # a byte of the last leaf's data
    cases = {
        "flipped.ckpt": (bytes(flipped), "damaged.*Bad CRC-32"),
        "truncated.ckpt": (data[: len(data) // 2], "not a horizax checkpoint"),
        "text.ckpt": (b"hello", "not a zip archive"),
    }
    for name, (content, message) in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(ValueError, match=message):
            checkpoint.load(tmp_path / name, like=STATE)
    claim = {"shape": [3], "dtype": "int32", "stored": "int32"}  # not what the leaf holds
    _rewrite_manifest(saved, lambda m: m["leaves"][0].update(claim))
    with pytest.raises(ValueError, match=r"damaged: leaf \['done'\] holds bool\[\]"):
        checkpoint.load(saved, like={**STATE, "done": jnp.zeros(3, jnp.int32)})
    _rewrite_manifest(saved, lambda m: m.update(format="something-else"))
    with pytest.raises(ValueError, match="not a horizax checkpoint"):
        checkpoint.load(saved, like=STATE)


def test_bad_arguments_raise_type_errors_naming_them(saved, tmp_path):
    with pytest.raises(TypeError, match="path must be a str"):
        checkpoint.save(3, STATE)
    with pytest.raises(TypeError, match="env_id must be a str"):
        checkpoint.save(tmp_path / "x.ckpt", STATE, env_id=3)
    with pytest.raises(TypeError, match="metadata must be JSON-serializable"):
        checkpoint.save(tmp_path / "x.ckpt", STATE, metadata={"f": object()})
    with pytest.raises(TypeError, match="metadata must be a mapping"):
        checkpoint.save(tmp_path / "x.ckpt", STATE, metadata=[1])
    with pytest.raises(TypeError, match=r"leaf \['name'\] is a str, not an array"):
        checkpoint.save(tmp_path / "x.ckpt", {"name": "a"})
    with pytest.raises(TypeError, match=r"leaf \['o'\] has the unsupported dtype"):
        checkpoint.save(tmp_path / "x.ckpt", {"o": np.array([None])})
    with pytest.raises(TypeError, match="traced value"):
        jax.jit(lambda x: checkpoint.save(tmp_path / "x.ckpt", x))(jnp.int32(0))
    with pytest.raises(TypeError, match="path must be a str"):
        checkpoint.load(None, like=STATE)
    with pytest.raises(TypeError, match="allow_version_mismatch must be a bool"):
        checkpoint.load(saved, like=STATE, allow_version_mismatch="yes")
    with pytest.raises(TypeError, match=r"like's leaf \['pos'\] is a str"):
        checkpoint.load(saved, like={**STATE, "pos": "x"})
    assert not (tmp_path / "x.ckpt").exists(), "nothing written by a refused save"


# --- the docs' examples run as written ----------------------------------------------------------


def test_the_docs_page_examples_run(tmp_path, monkeypatch):
    from tests.markdown import python_blocks

    blocks = python_blocks((ROOT / "docs" / "checkpoint.md").read_text(encoding="utf-8"))
    assert len(blocks) == 2, "expected the core example and the adapter example"
    monkeypatch.chdir(tmp_path)  # the examples write their files to the working directory
    namespace = {}
    exec(compile(blocks[0], "docs/checkpoint.md block 0", "exec"), namespace)
    assert namespace["timesteps"].t.tolist() == [11] * 8, "11 steps, one episode (limit 250)"
    assert checkpoint.read_manifest("doorkey.ckpt")["metadata"] == {"step": 10}
    pytest.importorskip("gymnasium")
    exec(compile(blocks[1], "docs/checkpoint.md block 1", "exec"), namespace)
    assert namespace["observations"]["image"].shape == (4, 7, 7, 3)
