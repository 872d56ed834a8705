"""Generated bad input: every constructor argument and action either works or raises early.

`tests/test_bad_input.py` walks the documented examples; here hypothesis generates the wrong
values (negative, zero, huge, NaN, bools, strings, None, lists, arrays of every dtype) and
checks that each entry point refuses them with a `TypeError` or `ValueError` naming the
argument, before anything is compiled, and that every adapter refuses the same actions.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import horizax
from horizax.core.checks import MAX_STEPS_LIMIT, check_key, check_unbatched, int_in_range

SETTINGS = settings(max_examples=40, deadline=None)

# Values that are not an int in [1, 2**31 - 1].
not_a_count = st.one_of(
    st.integers(max_value=0),
    st.integers(min_value=MAX_STEPS_LIMIT + 1, max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
    st.lists(st.integers(1, 5), max_size=2),
    st.just(np.float32(3.0)),
    st.just(np.bool_(True)),
)


@SETTINGS
@given(value=not_a_count)
def test_int_in_range_refuses_every_non_count(value):
    with pytest.raises(ValueError, match=r"^steps must be an int in \[1, 2\*\*31 - 1\]"):
        int_in_range(value, "steps")


@SETTINGS
@given(value=st.integers(1, MAX_STEPS_LIMIT), numpy=st.booleans())
def test_int_in_range_accepts_python_and_numpy_ints(value, numpy):
    given_value = np.int64(value) if numpy else value
    out = int_in_range(given_value, "steps")
    assert out == value and type(out) is int


@SETTINGS
@given(value=not_a_count)
def test_every_time_limit_argument_refuses_non_counts(value):
    # None selects the default time limit of the Maze and orbital ids (documented).
    for env_id, name, none_is_default in (
        ("MiniGrid-Empty-5x5-v0", "max_steps", False),
        ("Maze-v0", "time_limit", True),
        ("Orbital-LadyBanditGuard-v0", "max_steps", True),
    ):
        if value is None and none_is_default:
            continue
        with pytest.raises(ValueError, match=name):
            horizax.make(env_id, **{name: value})


@SETTINGS
@given(value=not_a_count.filter(lambda v: not (isinstance(v, int) and v > 0)))
def test_batch_sizes_refuse_non_counts(value):
    gymnasium = pytest.importorskip("horizax.adapters.gymnasium")
    torchrl = pytest.importorskip("horizax.adapters.torchrl")
    for build in (
        lambda v: gymnasium.make_vec("MiniGrid-Empty-5x5-v0", num_envs=v),
        lambda v: torchrl.TorchRLEnv("MiniGrid-Empty-5x5-v0", num_envs=v),
    ):
        with pytest.raises((TypeError, ValueError), match="num_envs"):
            build(value)


@SETTINGS
@given(
    value=st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=2**64),
        st.floats(),
        st.booleans(),
        st.text(max_size=3),
    )
)
def test_seeds_refuse_what_is_not_a_seed(value):
    from horizax.core.episode import seed_key, seed_keys

    for fn in (seed_key, lambda v: seed_keys(v, 3)):
        with pytest.raises((TypeError, ValueError), match="seed"):
            fn(value)


def _arrays(dtypes, shapes):
    return st.tuples(st.sampled_from(dtypes), st.sampled_from(shapes)).map(
        lambda ds: np.zeros(ds[1], ds[0])
    )


@SETTINGS
@given(
    key=st.one_of(
        st.integers(),
        st.text(max_size=2),
        st.none(),
        _arrays([np.float32, np.int32, np.int64, np.bool_, np.uint8], [(2,), ()]),
        _arrays([np.uint32], [(), (3,), (4, 2), (1, 2)]),
    )
)
def test_check_key_refuses_anything_but_one_key(key):
    with pytest.raises((TypeError, ValueError), match="key"):
        check_key(key)


def test_check_key_accepts_raw_typed_and_traced_keys():
    raw, typed = jax.random.PRNGKey(3), jax.random.key(3)
    assert check_key(raw) is raw and check_key(typed) is typed
    jax.jit(check_key)(raw)  # a tracer has a dtype and a shape: checked at trace time
    jax.vmap(check_key)(jax.random.split(typed, 3))
    with pytest.raises(ValueError, match=r"jax\.vmap"):
        check_key(jax.random.split(typed, 3))


def test_check_unbatched_reads_the_shape_of_a_scalar_leaf():
    check_unbatched(jnp.int32(0), "state")
    with pytest.raises(ValueError, match="state holds a batch"):
        check_unbatched(jnp.zeros(4, jnp.int32), "state")


# --- actions: one rule in every path ---------------------------------------------------------

WRONG_DTYPES = [np.float16, np.float32, np.float64, np.bool_, np.complex64]
INTEGER_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32]


@pytest.fixture(scope="module")
def paths():
    """``name -> step(action)`` for one MiniGrid environment through every path."""
    gymnasium = pytest.importorskip("horizax.adapters.gymnasium")
    dm_env = pytest.importorskip("horizax.adapters.dm_env")
    gymnax = pytest.importorskip("horizax.adapters.gymnax")
    env = horizax.make("MiniGrid-Empty-5x5-v0")
    timestep = env.reset(jax.random.key(0))
    gym_env = gymnasium.make("MiniGrid-Empty-5x5-v0")
    gym_env.reset(seed=0)
    vector = gymnasium.make_vec("MiniGrid-Empty-5x5-v0", num_envs=1)
    vector.reset(seed=0)
    dm = dm_env.DmEnv("MiniGrid-Empty-5x5-v0")
    dm.reset()
    gymnax_env = gymnax.ToGymnax(env)
    params = gymnax_env.default_params
    _, gymnax_state = gymnax_env.reset(jax.random.key(0), params)
    return {
        "native": lambda a: env.step(timestep, a),
        "gymnasium": gym_env.step,
        "vector": lambda a: vector.step(np.asarray(a)[None]),
        "dm_env": dm.step,
        "gymnax": lambda a: gymnax_env.step(jax.random.key(1), gymnax_state, a, params),
    }


@SETTINGS
@given(dtype=st.sampled_from(WRONG_DTYPES), value=st.integers(0, 6))
def test_every_path_refuses_a_non_integer_action(paths, dtype, value):
    for step in paths.values():
        with pytest.raises(TypeError, match="action"):
            step(np.asarray(value).astype(dtype))


@SETTINGS
@given(dtype=st.sampled_from(INTEGER_DTYPES), value=st.integers(0, 6))
def test_every_path_takes_every_integer_dtype(paths, dtype, value):
    for step in paths.values():
        step(np.asarray(value).astype(dtype))


@SETTINGS
@given(value=st.one_of(st.integers(-(2**63), -1), st.integers(min_value=7, max_value=2**63 - 1)))
def test_every_path_refuses_a_concrete_out_of_range_action(paths, value):
    for step in paths.values():
        with pytest.raises(ValueError, match=r"outside .*\[0, 7\)"):
            step(np.int64(value))
