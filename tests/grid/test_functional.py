"""The gridworld behind the core protocol: flags, no autoreset, jit/vmap/scan."""

import jax
import jax.numpy as jnp
import numpy as np

import horizax
from horizax.core.protocol import FunctionalEnv, functional
from horizax.grid import constants as C


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
