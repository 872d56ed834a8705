"""Every registered environment, and its protocol view, survives the standard `pickle`.

Registry-made gridworlds pickle by id (their layouts are closures); a hand-built environment
pickles field by field, or fails naming the field that cannot be pickled.
"""

import copy
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.core.protocol import functional
from horizax.grid import constants as C
from horizax.grid import observations, terminations
from horizax.grid.environment import Environment
from horizax.grid.state import make_state, walled_grid
from tests import code_families as families

IDS = horizax.registered_ids()
# A few families with different layout machinery, for the always-run behaviour check.
QUICK_IDS = ["MiniGrid-Empty-5x5-v0", "MiniGrid-LavaGapS5-v0"]


def _overridden(env_id: str):
    """``make(env_id)`` with a time limit of 7 (the Maze calls it ``time_limit``)."""
    if env_id == "Maze-v0":
        return horizax.make(env_id, time_limit=7)
    return horizax.make(env_id, max_steps=7)


def _round_trip(obj):
    return pickle.loads(pickle.dumps(obj))


def _assert_same_arrays(a, b, what: str) -> None:
    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    assert tree_a == tree_b, f"{what}: different structures"
    for x, y in zip(leaves_a, leaves_b, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=what)


def _native_reset_step(env):
    if env.env_id.startswith("Orbital-"):  # horizax.make gives the orbital view itself
        return _protocol_reset_step(env)
    if env.env_id == "Maze-v0":
        state, timestep = env.reset(jax.random.PRNGKey(0))
        return timestep, env.step(state, jnp.int32(1))
    timestep = env.reset(jax.random.PRNGKey(0))
    return timestep, env.step(timestep, jnp.int32(2))


def _protocol_reset_step(view):
    state, step = view.reset(jax.random.PRNGKey(0))
    action = view.action_space.sample(jax.random.PRNGKey(2))  # an int or a Box action
    return step, view.step(jax.random.PRNGKey(1), state, action)


@pytest.mark.parametrize("env_id", IDS)
def test_every_registered_id_pickles_to_an_equal_environment(env_id):
    for env in (horizax.make(env_id), _overridden(env_id)):
        for obj in (env, functional(env)):
            data = pickle.dumps(obj)
            back = pickle.loads(data)
            assert type(back) is type(obj), f"{env_id}: unpickled as {type(back)}"
            assert back == obj, f"{env_id}: {type(obj).__name__} unpickles to a different one"
            # By id: the layout closure never enters the pickle, so it stays small.
            assert len(data) < 4096, f"{env_id}: {len(data)} bytes, the layout was pickled?"
    limit = "time_limit" if env_id == "Maze-v0" else "max_steps"
    assert getattr(_round_trip(_overridden(env_id)), limit) == 7, "the override was lost"


@pytest.mark.parametrize("env_id", QUICK_IDS)
def test_unpickled_environment_resets_and_steps_identically(env_id):
    env = _overridden(env_id)
    _assert_same_arrays(
        _native_reset_step(env), _native_reset_step(_round_trip(env)), f"{env_id} native"
    )
    view = functional(env)
    _assert_same_arrays(
        _protocol_reset_step(view), _protocol_reset_step(_round_trip(view)), f"{env_id} view"
    )


def _traced(fn, *args):
    """``fn``'s jaxpr as text, its constants (what a compiled call of it computes) and the
    shapes of its output."""
    closed, shapes = jax.make_jaxpr(fn, return_shape=True)(*args)
    return str(closed.jaxpr), [np.asarray(c) for c in closed.consts], shapes


def _assert_same_program(fn_a, fn_b, args, what: str):
    """Asserts equal programs; returns zeros shaped like their output (from the trace
    itself: no reset run eagerly, and no third trace of a BabyAI level's reset, which
    alone takes seconds)."""
    (text_a, consts_a, shapes), (text_b, consts_b, _) = _traced(fn_a, *args), _traced(fn_b, *args)
    assert text_a == text_b, f"{what}: the unpickled environment traces a different program"
    assert len(consts_a) == len(consts_b), f"{what}: different constants"
    for x, y in zip(consts_a, consts_b, strict=True):
        np.testing.assert_array_equal(x, y, err_msg=what)
    return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)


@pytest.mark.parametrize("env_id", families.REPRESENTATIVES)
def test_every_unpickled_family_traces_the_same_reset_and_step(env_id):
    """The unpickled environment (and protocol view) computes what the original does: equal
    jaxprs and constants for reset and step. Tracing, not running: compiling every id twice
    costs minutes, and equal programs give equal results (the quick test above runs some).
    One id of each family (`tests.code_families`: the same code, other constants); every id's
    constants survive the round trip by the equality test above."""
    key = jax.random.PRNGKey(0)
    env = horizax.make(env_id)
    back = _round_trip(env)
    first = _assert_same_program(env.reset, back.reset, (key,), f"{env_id} native reset")
    view = functional(_overridden(env_id))
    action = jnp.zeros(view.action_space.shape, view.action_space.dtype)
    if env_id.startswith("Orbital-"):  # the native API is the protocol view itself
        native_args = (key, first[0], action)
    else:  # the Maze returns (state, timestep), a gridworld its Timestep
        native_args = (first[0] if env_id == "Maze-v0" else first, jnp.int32(1))
    _assert_same_program(env.step, back.step, native_args, f"{env_id} native step")
    view_back = _round_trip(view)
    state, _ = _assert_same_program(view.reset, view_back.reset, (key,), f"{env_id} view reset")
    _assert_same_program(view.step, view_back.step, (key, state, action), f"{env_id} view step")


def _closure_layout(size: int):
    def layout(key):
        return make_state(walled_grid(size, size), jnp.array([1, 1]), jnp.int32(0))

    return layout


def empty_room_layout(key):
    """A module-level layout: picklable by reference."""
    grid = walled_grid(5, 5)
    grid[3, 3] = C.GOAL_CELL
    return make_state(grid, jnp.array([1, 1]), jnp.int32(0))


def test_unpicklable_field_is_named_in_the_error():
    env = Environment(width=5, height=5, max_steps=10, layout_fn=_closure_layout(5))
    with pytest.raises(pickle.PicklingError, match="field 'layout_fn'"):
        pickle.dumps(env)
    # A registered environment with a closure swapped in names that field, not the layout.
    composed = terminations.compose(terminations.on_goal_reached, terminations.on_lava_fall)
    changed = horizax.make("MiniGrid-Empty-5x5-v0", termination_fn=composed)
    with pytest.raises(pickle.PicklingError, match="field 'termination_fn'"):
        pickle.dumps(changed)


def test_copying_still_works_for_closures():
    env = Environment(width=5, height=5, max_steps=10, layout_fn=_closure_layout(5))
    assert copy.copy(env) == env, "copy.copy goes through __reduce__ and must not pickle"
    assert copy.deepcopy(env) == env, "copy.deepcopy goes through __reduce__ too"
    made = horizax.make("MiniGrid-Empty-5x5-v0", max_steps=7)
    assert copy.deepcopy(made) == made


def test_hand_built_environment_with_picklable_fields_round_trips():
    env = Environment(
        width=5,
        height=5,
        max_steps=9,
        layout_fn=empty_room_layout,
        observation_fn=observations.symbolic,
    )
    back = _round_trip(env)
    assert back == env, "a hand-built environment of module-level functions must round-trip"
    _assert_same_arrays(_native_reset_step(env), _native_reset_step(back), "hand-built")


def test_maze_pickles_without_its_viewer_figure():
    pytest.importorskip("matplotlib", reason="the Maze viewer needs matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    env = horizax.make("Maze-v0")
    state, _ = env.reset(jax.random.PRNGKey(0))
    env.render(state)  # creates the cached default viewer and its figure
    assert "_viewer" in env.__dict__, "rendering should have cached the viewer"
    data = pickle.dumps(env)
    assert b"matplotlib" not in data, "the pickled Maze drags its matplotlib figure along"
    back = pickle.loads(data)
    assert back == env and "_viewer" not in back.__dict__
    env.close()
