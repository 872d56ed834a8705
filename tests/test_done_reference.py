"""terminated_or_truncated side by side with torchrl.envs.terminated_or_truncated.

Hundreds of generated nested cases (root, nested, multi-agent, batched, with and without a
spec, ``key=None``, tuple keys, ``write_full_false``) run through TorchRL on a TensorDict and
through horizax on the same TensorDict, on nested numpy dicts and, in the pure form, on JAX
dicts. Where the page and TorchRL's code agree the outputs must be identical; where TorchRL
overwrites (or deletes) a ``_reset`` already present, the page's rule -- the previous value
prevails -- is what horizax must do, and the rest must still match TorchRL.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

torch = pytest.importorskip("torch")
tensordict = pytest.importorskip("tensordict")
torchrl_envs = pytest.importorskip("torchrl.envs")
from tensordict import TensorDict  # noqa: E402
from torchrl.data import Categorical, Composite  # noqa: E402

from horizax.done import (  # noqa: E402
    DONE_KEYS,
    terminated_or_truncated,
    terminated_or_truncated_pure,
)

pytestmark = pytest.mark.reference

reference = torchrl_envs.terminated_or_truncated
CHILD_NAMES = ("agents", "nested", "team")


@dataclasses.dataclass
class Node:
    """One level of a generated case: its batch shape, leaves and child levels."""

    batch: tuple[int, ...]
    leaves: dict[str, np.ndarray]
    children: dict[str, Node]
    spec_leaves: tuple[str, ...] = ()  # done leaves the spec names here (some may be absent)
    spec_children: tuple[str, ...] = ()


def generate_node(rng: np.random.Generator, batch: tuple[int, ...], depth: int) -> Node:
    p_true = float(rng.choice([0.0, 0.0, 0.1, 0.5]))
    leaves = {name: rng.random((*batch, 1)) < p_true for name in DONE_KEYS if rng.random() < 0.6}
    if rng.random() < 0.3:
        leaves["observation"] = rng.standard_normal((*batch, 2)).astype(np.float32)
    children = {}
    if depth < 3:
        for name in CHILD_NAMES[: int(rng.integers(0, 3))]:
            # Half the children are multi-agent: one more batch dimension.
            child_batch = (*batch, int(rng.integers(1, 4))) if rng.random() < 0.5 else batch
            children[name] = generate_node(rng, child_batch, depth + 1)
    node = Node(batch, leaves, children)
    node.spec_leaves = tuple(name for name in DONE_KEYS if rng.random() < 0.7)
    node.spec_children = tuple(name for name in children if rng.random() < 0.8)
    return node


def to_dict(node: Node, convert=np.array) -> dict[str, Any]:
    out: dict[str, Any] = {k: convert(v) for k, v in node.leaves.items()}
    out.update({k: to_dict(c, convert) for k, c in node.children.items()})
    return out


def to_tensordict(node: Node) -> TensorDict:
    fields: dict[str, Any] = {k: torch.from_numpy(v.copy()) for k, v in node.leaves.items()}
    fields.update({k: to_tensordict(c) for k, c in node.children.items()})
    return TensorDict(fields, batch_size=node.batch)


def to_torchrl_spec(node: Node) -> Composite:
    leaves = {k: Categorical(2, shape=(*node.batch, 1), dtype=torch.bool) for k in node.spec_leaves}
    children = {k: to_torchrl_spec(node.children[k]) for k in node.spec_children}
    return Composite(**leaves, **children, shape=node.batch)


def to_jax_spec(node: Node) -> dict[str, Any]:
    spec: dict[str, Any] = {
        k: jax.ShapeDtypeStruct((*node.batch, 1), jnp.bool_) for k in node.spec_leaves
    }
    spec.update({k: to_jax_spec(node.children[k]) for k in node.spec_children})
    return spec


def plant_existing(node: Node, rng: np.random.Generator, path=()) -> dict[tuple, np.ndarray]:
    """Puts a pre-existing ``_reset`` in about a quarter of the levels; returns them by path."""
    planted = {}
    if rng.random() < 0.25:
        node.leaves["_reset"] = rng.random((*node.batch, 1)) < 0.5
        planted[path] = node.leaves["_reset"].copy()
    for name, child in node.children.items():
        planted.update(plant_existing(child, rng, (*path, name)))
    return planted


def as_numpy_tree(tree: Any) -> Any:
    if isinstance(tree, TensorDict):
        tree = tree.to_dict()
    if isinstance(tree, dict):
        return {k: as_numpy_tree(v) for k, v in tree.items()}
    return np.asarray(tree)


def assert_same_tree(actual: Any, expected: Any, where: str = "") -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected a level"
        assert set(actual) == set(expected), f"{where}: keys {set(actual)} != {set(expected)}"
        for k in expected:
            assert_same_tree(actual[k], expected[k], f"{where}/{k}")
    else:
        assert actual.shape == expected.shape, f"{where}: shape {actual.shape} != {expected.shape}"
        assert actual.dtype == expected.dtype, f"{where}: dtype {actual.dtype} != {expected.dtype}"
        np.testing.assert_array_equal(actual, expected, err_msg=where)


def drop_empty_levels(out: dict, original: dict) -> dict:
    """Drops levels that are empty and were not in the input.

    With a nested ``key`` and nothing done, TorchRL deletes the flags it wrote but leaves the
    levels it created for them, empty; horizax writes nothing at all in that case.
    """
    for name in list(out):
        if isinstance(out[name], dict):
            if name not in original and not out[name]:
                del out[name]
            elif name in original:
                drop_empty_levels(out[name], original[name])
    return out


def page_expected(torchrl_out: dict, planted: dict[tuple, np.ndarray]) -> dict:
    """TorchRL's output with every pre-existing ``_reset`` put back: the page's rule."""
    for path, value in planted.items():
        level = torchrl_out
        for name in path:
            level = level[name]
        level["_reset"] = value
    return torchrl_out


@dataclasses.dataclass
class Case:
    root: Node
    use_spec: bool
    key: Any
    write_full_false: bool
    planted: dict


def generate_case(rng: np.random.Generator) -> Case:
    batch = tuple(int(n) for n in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    root = generate_node(rng, batch, 0)
    key = [("_reset"), ("_reset"), ("_reset"), None, ("sub", "_reset")][int(rng.integers(0, 5))]
    planted = plant_existing(root, rng) if key == "_reset" else {}
    return Case(root, bool(rng.random() < 0.5), key, bool(rng.random() < 0.5), planted)


def run_reference(case: Case, write_full_false: bool) -> tuple[bool, dict]:
    td = to_tensordict(case.root)
    spec = to_torchrl_spec(case.root) if case.use_spec else None
    any_done = bool(reference(td, spec, case.key, write_full_false))
    expected = page_expected(as_numpy_tree(td), case.planted)
    return any_done, drop_empty_levels(expected, to_dict(case.root))


@pytest.mark.slow
def test_generated_cases_match_torchrl_where_the_page_agrees():
    rng = np.random.default_rng(2024)
    counts = dict.fromkeys(
        ["agree", "existing", "spec", "none", "tuple", "any", "nothing", "agents"], 0
    )
    for index in range(400):
        case = generate_case(rng)
        where = f"case {index}"
        ref_any, expected = run_reference(case, case.write_full_false)
        _, expected_full = run_reference(case, True)
        torch_spec = to_torchrl_spec(case.root) if case.use_spec else None

        td = to_tensordict(case.root)
        ours_any = terminated_or_truncated(td, torch_spec, case.key, case.write_full_false)
        assert ours_any == ref_any, f"{where}: TensorDict return value"
        assert_same_tree(as_numpy_tree(td), expected, f"{where} (TensorDict)")

        data = to_dict(case.root)
        ours_any = terminated_or_truncated(data, torch_spec, case.key, case.write_full_false)
        assert ours_any == ref_any, f"{where}: numpy return value"
        assert_same_tree(as_numpy_tree(data), expected, f"{where} (numpy)")

        jax_spec = to_jax_spec(case.root) if case.use_spec else None
        out, pure_any = terminated_or_truncated_pure(
            to_dict(case.root, jnp.asarray), jax_spec, case.key
        )
        assert bool(pure_any) == ref_any, f"{where}: pure return value"
        assert_same_tree(
            as_numpy_tree(out),
            expected_full if case.key else as_numpy_tree(to_dict(case.root)),
            f"{where} (pure)",
        )

        counts["agree" if not case.planted else "existing"] += 1
        counts["spec"] += case.use_spec
        counts["none"] += case.key is None
        counts["tuple"] += isinstance(case.key, tuple)
        counts["any" if ref_any else "nothing"] += 1
        counts["agents"] += any(
            len(c.batch) > len(case.root.batch) for c in case.root.children.values()
        )
    # The sweep must cover every kind of case, or its passing means little.
    assert counts["agree"] >= 200 and counts["existing"] >= 40, counts
    assert min(counts.values()) >= 40, counts


def test_a_few_generated_cases_agree_under_jit():
    rng = np.random.default_rng(7)
    for index in range(8):
        case = generate_case(rng)
        _, expected_full = run_reference(case, True)
        if case.key is None:
            continue
        jax_spec = to_jax_spec(case.root) if case.use_spec else None
        out, _ = jax.jit(lambda d, s=jax_spec, k=case.key: terminated_or_truncated_pure(d, s, k))(
            to_dict(case.root, jnp.asarray)
        )
        assert_same_tree(as_numpy_tree(out), expected_full, f"case {index} (jit)")


# --- where TorchRL's code departs from the page ---------------------------------------------


def test_an_existing_reset_prevails_where_torchrl_overwrites_it():
    def make():
        return TensorDict({"done": torch.tensor([[True]]), "_reset": torch.tensor([[False]])}, [1])

    theirs, ours = make(), make()
    assert bool(reference(theirs)) and terminated_or_truncated(ours)
    assert theirs["_reset"].tolist() == [[True]], "TorchRL overwrites (the page says it should not)"
    assert ours["_reset"].tolist() == [[False]], "the page: the previous value prevails"


def test_an_existing_reset_survives_where_torchrl_deletes_it():
    def make():
        return TensorDict({"done": torch.tensor([[False]]), "_reset": torch.tensor([[True]])}, [1])

    theirs, ours = make(), make()
    assert not bool(reference(theirs)) and not terminated_or_truncated(ours)
    assert "_reset" not in theirs, "TorchRL removes the entry it overwrote"
    assert ours["_reset"].tolist() == [[True]]


def test_missing_spec_composite_is_a_key_error_where_torchrl_raises_attribute_error():
    spec = Composite(
        done=Categorical(2, shape=(1,), dtype=torch.bool),
        agents=Composite(done=Categorical(2, shape=(1,), dtype=torch.bool)),
    )
    with pytest.raises(AttributeError):
        reference(TensorDict({"done": torch.tensor([True])}, []), spec)
    with pytest.raises(KeyError, match="agents"):
        terminated_or_truncated(TensorDict({"done": torch.tensor([True])}, []), spec)
    with pytest.raises(KeyError, match="agents"):
        terminated_or_truncated({"done": np.array([True])}, spec)


# --- TensorDict specifics -------------------------------------------------------------------


def test_page_example_on_a_tensordict():
    spec = Composite(
        done=Categorical(2, dtype=torch.bool),
        truncated=Categorical(2, dtype=torch.bool),
        nested=Composite(
            done=Categorical(2, dtype=torch.bool), truncated=Categorical(2, dtype=torch.bool)
        ),
    )
    data = TensorDict(
        {"done": True, "truncated": False, "nested": {"done": False, "truncated": True}}, []
    )
    assert terminated_or_truncated(data, spec) is True
    assert bool(data["_reset"]) and bool(data["nested", "_reset"])


def test_tensordict_missing_spec_leaf_reads_as_not_done_with_a_trailing_one():
    spec = Composite(truncated=Categorical(2, shape=(3, 1), dtype=torch.bool), shape=(3,))
    data = TensorDict({}, [3])
    assert terminated_or_truncated(data, spec, write_full_false=True) is False
    assert data["_reset"].shape == (3, 1) and data["_reset"].dtype == torch.bool


def test_pure_form_clones_a_tensordict():
    data = TensorDict({"done": torch.tensor([[False], [True]])}, [2])
    out, any_done = terminated_or_truncated_pure(data)
    assert bool(any_done) and out["_reset"].tolist() == [[False], [True]]
    assert "_reset" not in data, "the input TensorDict is left alone"


def test_float_tensor_flags_are_refused():
    with pytest.raises(TypeError, match="'done'"):
        terminated_or_truncated(TensorDict({"done": torch.tensor([0.5])}, []))
