"""The gridworld behind the core protocol (`horizax.grid.functional.GridFunctional`): flags, no
autoreset, jit/vmap/scan, observations, how the engine draws at autoreset."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.core.protocol import FunctionalEnv, functional
from horizax.grid import constants as C
from horizax.grid.functional import GridFunctional
from horizax.testing.harness import assert_in_space


def _goal_in_one_step_env():
    # Empty-5x5: the agent starts at (1, 1) facing east; the goal is at (3, 3).
    return horizax.make("MiniGrid-Empty-5x5-v0")


def test_grid_view_implements_the_protocol():
    fenv = functional(_goal_in_one_step_env())
    assert isinstance(fenv, FunctionalEnv)
    assert fenv.env_id == "MiniGrid-Empty-5x5-v0"
    assert fenv.max_steps == 100
    assert fenv.action_space.n == 7


def test_time_limit_truncates_and_does_not_autoreset():
    fenv = functional(_goal_in_one_step_env().replace(max_steps=3))
    key = jax.random.PRNGKey(0)
    state, step = fenv.reset(key)
    assert not bool(step.done) and float(step.reward) == 0.0
    flags = []
    for _ in range(4):
        state, step = fenv.step(key, state, jnp.int32(C.LEFT))
        flags.append((bool(step.terminated), bool(step.truncated), int(state.step_count)))
    assert flags[:3] == [(False, False, 1), (False, False, 2), (False, True, 3)]
    # No autoreset: the episode goes on counting (adapters decide when to reset).
    assert flags[3][2] == 4


def test_goal_terminates_not_truncates():
    fenv = functional(_goal_in_one_step_env())
    key = jax.random.PRNGKey(0)
    state, _ = fenv.reset(key)
    # Forward, forward, right, forward, forward reaches (3, 3) from (1, 1) facing east.
    for action in (C.FORWARD, C.FORWARD, C.RIGHT, C.FORWARD, C.FORWARD):
        state, step = fenv.step(key, state, jnp.int32(action))
    assert bool(step.terminated) and not bool(step.truncated)
    assert float(step.reward) > 0.0


def test_jit_vmap_scan_and_render():
    fenv = functional(horizax.make("MiniGrid-DoorKey-5x5-v0"))
    keys = jax.random.split(jax.random.PRNGKey(1), 4)

    def rollout(key):
        state, _ = fenv.reset(key)

        def body(state, action):
            state, step = fenv.step(key, state, action)
            return state, step

        return jax.lax.scan(body, state, jnp.arange(12) % 3)[1]

    steps = jax.jit(jax.vmap(rollout))(keys)
    assert steps.observation["image"].shape == (4, 12, 7, 7, 3)
    assert steps.observation["direction"].shape == (4, 12)
    assert steps.observation["mission"].shape == (4, 12, 10)
    assert steps.terminated.dtype == jnp.bool_ and steps.reward.dtype == jnp.float32
    frame = fenv.render(fenv.reset(keys[0])[0])
    assert frame.dtype == np.uint8 and frame.shape == (5 * 32, 5 * 32, 3)


def test_the_view_wraps_only_grid_environments_and_leaves_autoreset_to_the_engine():
    with pytest.raises(TypeError, match="wraps a grid Environment"):
        GridFunctional(horizax.make("Maze-v0"))
    env = horizax.make("MiniGrid-DoorKey-5x5-v0")
    view = env.as_functional()
    assert isinstance(view, GridFunctional) and not view.env.autoreset
    assert view.replace(max_steps=7).max_steps == 7


@pytest.mark.parametrize(
    ("env_id", "rounds"),
    [
        ("MiniGrid-Empty-8x8-v0", False),  # its constant layout is selected
        ("MiniGrid-Empty-Random-6x6-v0", True),
        ("MiniGrid-MemoryS13-v0", False),  # a layout of a few elementwise operations
    ],
)
def test_the_engine_reads_how_the_environment_draws_at_autoreset(env_id, rounds):
    assert horizax.make(env_id).as_functional().autoreset_rounds is rounds


def test_observations_are_minigrids_dict_in_its_space():
    env = horizax.make("MiniGrid-Fetch-8x8-N3-v0")
    view = env.as_functional()
    state, step = jax.jit(view.reset)(jax.random.PRNGKey(0))
    assert_in_space(view.observation_space, step.observation, 0, "reset")
    np.testing.assert_array_equal(
        step.observation["image"], env.reset(jax.random.PRNGKey(0)).observation
    )
    assert int(step.observation["direction"]) == int(state.agent_dir)
    np.testing.assert_array_equal(step.observation["mission"], state.mission)


def test_a_fixed_grid_is_observed_as_the_step_reads_it():
    """Where `Environment.fixed_grid` holds, the view observes the layout's grid, as
    `Environment.observe` does, not a grid edited by hand."""
    env = horizax.make("MiniGrid-Empty-8x8-v0")
    view = env.as_functional()
    state, step = view.reset(jax.random.PRNGKey(0))
    wall = jnp.array(C.WALL_CELL, jnp.uint8)
    edited = state.replace(grid=state.grid.at[2, 1].set(wall))  # the cell the agent faces
    observation, _ = view.observe(edited)
    np.testing.assert_array_equal(observation["image"], step.observation["image"])
    undeclared = env.replace(layout_objects=None).as_functional()
    seen, _ = undeclared.observe(edited)
    assert not np.array_equal(seen["image"], step.observation["image"])
