"""terminated_or_truncated over nested numpy/JAX mappings: seed 003's semantics, pure form."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.core.protocol import make_step
from horizax.core.struct import pytree_dataclass
from horizax.done import DONE_KEYS, terminated_or_truncated, terminated_or_truncated_pure

T, F = np.array([True]), np.array([False])


def test_page_example_writes_a_flag_at_the_root_and_in_the_nested_level():
    data = {"done": True, "truncated": False, "nested": {"done": False, "truncated": True}}
    assert terminated_or_truncated(data) is True
    assert bool(data["_reset"]) and bool(data["nested"]["_reset"])


def test_flags_are_the_or_of_the_three_done_entries_per_element():
    data = {
        "done": np.array([[False], [False], [False], [False]]),
        "terminated": np.array([[True], [False], [False], [False]]),
        "truncated": np.array([[False], [True], [False], [False]]),
    }
    terminated_or_truncated(data)
    assert data["_reset"].tolist() == [[True], [True], [False], [False]]
    assert data["_reset"].dtype == np.bool_


def test_other_entries_are_ignored_without_a_spec():
    data = {"stop": T, "reward": np.array([1.0]), "done": F, "obs": {"pixels": np.zeros(3)}}
    assert terminated_or_truncated(data, write_full_false=True) is False
    assert data["_reset"].tolist() == [False]
    assert "_reset" not in data["obs"], "a level without done entries gets no flag"


def test_key_none_writes_nothing_and_reports():
    data = {"done": F, "agents": {"terminated": T}}
    assert terminated_or_truncated(data, key=None) is True
    assert set(data) == {"done", "agents"} and set(data["agents"]) == {"terminated"}


def test_nothing_is_written_when_nothing_is_done_unless_write_full_false():
    data = {"done": F, "nested": {"truncated": F}}
    assert terminated_or_truncated(data) is False
    assert "_reset" not in data and "_reset" not in data["nested"]
    assert terminated_or_truncated(data, write_full_false=True) is False
    assert data["_reset"].tolist() == [False] and data["nested"]["_reset"].tolist() == [False]


def test_an_existing_value_under_key_prevails():
    existing = np.array([False])
    data = {"done": T, "_reset": existing, "nested": {"done": T}}
    assert terminated_or_truncated(data) is True
    assert data["_reset"] is existing, "the page: the previous value prevails"
    assert data["nested"]["_reset"].tolist() == [True], "other levels are still written"


def test_an_existing_value_survives_when_nothing_is_done():
    existing = np.array([True])
    data = {"done": F, "_reset": existing}
    assert terminated_or_truncated(data) is False
    assert data["_reset"] is existing, "only flags this call wrote could be withheld"


def test_none_under_key_counts_as_absent():
    data = {"done": T, "_reset": None}
    terminated_or_truncated(data)
    assert data["_reset"].tolist() == [True]


def test_return_value_sees_nested_levels_below_a_level_that_is_not_done():
    # The page: "whether any of the done states found in the data contained a True".
    data = {"done": np.array([[False]]), "agents": {"done": np.array([[[True], [False]]])}}
    assert terminated_or_truncated(data) is True
    assert data["agents"]["_reset"].tolist() == [[[True], [False]]]
    assert data["_reset"].tolist() == [[False]]


def test_batched_multi_agent_levels_broadcast_within_a_level():
    rng = np.random.default_rng(0)
    done = rng.random((4, 3, 1)) < 0.3
    truncated = rng.random((4, 1, 1)) < 0.3  # one flag per batch element, shared by agents
    data = {"agents": {"done": done, "truncated": truncated}}
    terminated_or_truncated(data, write_full_false=True)
    np.testing.assert_array_equal(data["agents"]["_reset"], done | truncated)


def test_tuple_key_writes_below_each_level():
    data = {"done": T, "nested": {"truncated": T, "info": {"x": F}}}
    terminated_or_truncated(data, key=("info", "reset_now"))
    assert data["info"]["reset_now"].tolist() == [True], "intermediate mapping created"
    assert data["nested"]["info"]["reset_now"].tolist() == [True], "existing mapping reused"
    assert data["nested"]["info"]["x"].tolist() == [False]


def test_integer_flags_are_read_as_booleans():
    data = {"done": np.array([0, 2, 0]), "terminated": np.array([0, 0, 1])}
    terminated_or_truncated(data)
    assert data["_reset"].tolist() == [False, True, True]
    assert data["_reset"].dtype == np.bool_


def test_jax_arrays_are_written_as_jax_arrays():
    data = {"done": jnp.array([True, False])}
    assert terminated_or_truncated(data) is True
    assert isinstance(data["_reset"], jax.Array)


# --- full_done_spec -------------------------------------------------------------------------


def flag_spec(*shape: int) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, jnp.bool_)


def test_spec_leaves_are_read_exactly_and_other_entries_ignored():
    spec = {"stop": flag_spec(1), "nested": {"done": flag_spec(1)}}
    data = {"stop": T, "done": F, "nested": {"done": F, "truncated": T}}
    terminated_or_truncated(data, spec)
    assert data["_reset"].tolist() == [True], "the custom leaf named by the spec is read"
    assert data["nested"]["_reset"].tolist() == [False], "truncated is not in the spec"


def test_spec_leaf_missing_from_data_reads_not_done_with_the_spec_shape():
    spec = {"done": flag_spec(2, 1), "truncated": flag_spec(2, 1)}
    data: dict[str, Any] = {}
    assert terminated_or_truncated(data, spec, write_full_false=True) is False
    assert data["_reset"].shape == (2, 1) and not data["_reset"].any()


def test_spec_composite_missing_from_data_is_a_key_error():
    spec = {"done": flag_spec(1), "agents": {"done": flag_spec(1)}}
    with pytest.raises(KeyError, match="agents"):
        terminated_or_truncated({"done": T}, spec)


def test_spec_composite_over_a_data_leaf_is_a_type_error():
    with pytest.raises(TypeError, match="agents"):
        terminated_or_truncated({"agents": T}, {"agents": {"done": flag_spec(1)}})


def test_spec_may_be_a_horizax_dict_space():
    from horizax.core.spaces import Dict, Discrete

    spec = Dict({"terminated": Discrete(2), "team": Dict({"truncated": Discrete(2)})})
    data = {"terminated": F, "team": {"truncated": T}}
    assert terminated_or_truncated(data, spec) is True
    assert data["team"]["_reset"].tolist() == [True]


# --- bad input ------------------------------------------------------------------------------


def test_float_flags_are_refused():
    with pytest.raises(TypeError, match="'done'"):
        terminated_or_truncated({"done": np.array([0.5])})


def test_data_must_be_a_structure():
    with pytest.raises(TypeError, match="data must be"):
        terminated_or_truncated(np.array([True]))


@pytest.mark.parametrize("key", [(), 3, ("a", 1)])
def test_key_must_be_none_str_or_tuple_of_str(key):
    with pytest.raises(TypeError, match="key must be"):
        terminated_or_truncated({"done": T}, key=key)


def test_done_entry_holding_a_mapping_is_refused():
    with pytest.raises(TypeError, match="'done'"):
        terminated_or_truncated({"done": {"x": T}})


# --- pytree dataclasses ---------------------------------------------------------------------


@pytree_dataclass
class Agents:
    terminated: Any
    truncated: Any
    _reset: Any = None


def test_dataclass_levels_are_read_through_their_fields():
    step = make_step(jnp.zeros(2), terminated=False, truncated=True)
    assert terminated_or_truncated(step, key=None) is True
    assert terminated_or_truncated(make_step(jnp.zeros(2)), key=None) is False


def test_dataclass_levels_are_not_written_in_place():
    with pytest.raises(TypeError, match="terminated_or_truncated_pure"):
        terminated_or_truncated(make_step(jnp.zeros(2), terminated=True))


def test_pure_form_replaces_the_key_field_of_a_dataclass_level():
    data = {"agents": Agents(jnp.array([True, False]), jnp.array([False, False]))}
    out, any_done = terminated_or_truncated_pure(data)
    assert bool(any_done)
    assert isinstance(out["agents"], Agents)
    assert out["agents"]._reset.tolist() == [True, False]
    assert data["agents"]._reset is None, "the input is not mutated"


def test_pure_form_needs_a_field_to_write_into():
    with pytest.raises(TypeError, match="no field '_reset'"):
        terminated_or_truncated_pure(make_step(jnp.zeros(2), terminated=True))


# --- the pure form under jit and vmap -------------------------------------------------------


def random_data(key: jax.Array, batch: int) -> dict[str, Any]:
    k = jax.random.split(key, 4)
    return {
        "done": jax.random.bernoulli(k[0], 0.2, (batch, 1)),
        "truncated": jax.random.bernoulli(k[1], 0.2, (batch, 1)),
        "agents": {
            "terminated": jax.random.bernoulli(k[2], 0.2, (batch, 3, 1)),
            "truncated": jax.random.bernoulli(k[3], 0.2, (batch, 3, 1)),
        },
        "observation": jnp.zeros((batch, 5)),
    }


def test_pure_form_under_jit_matches_in_place_with_write_full_false():
    traces = []

    @jax.jit
    def f(data):
        traces.append(None)
        return terminated_or_truncated_pure(data)

    for seed in range(5):
        data = random_data(jax.random.PRNGKey(seed), 4)
        out, any_done = f(data)
        expected = jax.tree.map(np.asarray, data)
        expected_any = terminated_or_truncated(expected, write_full_false=True)
        assert bool(any_done) == expected_any
        assert jax.tree.structure(out) == jax.tree.structure(expected)
        jax.tree.map(np.testing.assert_array_equal, out, expected)
        assert "_reset" not in data, "the input mapping is not mutated"
    assert len(traces) == 1, "one trace for a fixed structure"


def test_pure_form_all_false_still_writes_so_the_structure_is_static():
    data = {"done": jnp.zeros((2, 1), bool)}
    out, any_done = jax.jit(terminated_or_truncated_pure)(data)
    assert not bool(any_done)
    assert out["_reset"].tolist() == [[False], [False]]


def test_pure_form_key_none_returns_data_unchanged():
    data = random_data(jax.random.PRNGKey(1), 2)
    out, _ = terminated_or_truncated_pure(data, key=None)
    assert out is data


def test_pure_form_under_vmap_equals_the_batched_call():
    data = random_data(jax.random.PRNGKey(3), 6)
    batched, any_batched = terminated_or_truncated_pure(data)
    mapped, any_mapped = jax.vmap(terminated_or_truncated_pure)(data)
    jax.tree.map(np.testing.assert_array_equal, mapped, batched)
    assert bool(jnp.any(any_mapped)) == bool(any_batched)
    per_env = [
        bool(terminated_or_truncated_pure(jax.tree.map(lambda x, i=i: x[i], data))[1])
        for i in range(6)
    ]
    assert any_mapped.tolist() == per_env, "vmap gives one answer per environment"


def test_pure_form_keeps_an_existing_value():
    data = {"done": jnp.array([True]), "_reset": jnp.array([False])}
    out, _ = jax.jit(terminated_or_truncated_pure)(data)
    assert out["_reset"].tolist() == [False]


def test_pure_form_with_a_spec_of_shape_dtype_structs():
    spec = {"done": flag_spec(2, 1), "agents": {"truncated": flag_spec(2, 3, 1)}}
    data = {"done": jnp.array([[True], [False]]), "agents": {}}
    out, any_done = jax.jit(lambda d: terminated_or_truncated_pure(d, spec))(data)
    assert bool(any_done)
    assert out["agents"]["_reset"].shape == (2, 3, 1) and not out["agents"]["_reset"].any()


def test_in_place_form_under_jit_points_to_the_pure_form():
    with pytest.raises(TypeError, match="terminated_or_truncated_pure"):
        jax.jit(lambda d: terminated_or_truncated(dict(d)))({"done": jnp.array([True])})


def test_done_keys_are_the_three_documented_names():
    assert DONE_KEYS == ("done", "terminated", "truncated")


def test_importing_and_using_done_never_imports_torch():
    code = textwrap.dedent(
        """
        import sys
        import numpy as np
        from horizax.done import terminated_or_truncated
        assert terminated_or_truncated({"done": np.array([True])})
        assert "torch" not in sys.modules and "tensordict" not in sys.modules
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True)
