"""The Maze behind the core protocol: dict observations, spaces, flags, registry, check_env."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.core.protocol import FunctionalEnv, functional
from horizax.core.spaces import Box
from horizax.maze import Maze, RandomGenerator, ToyGenerator
from horizax.maze.environment import MazeFunctional
from horizax.testing import check_env

UP, RIGHT, DOWN, LEFT = range(4)
TOY_PATH = [DOWN, DOWN, DOWN, RIGHT, RIGHT, UP, UP, UP, RIGHT, RIGHT]


def test_registered_as_maze_v0_with_overrides():
    assert "Maze-v0" in horizax.registered_ids()
    env = horizax.make("Maze-v0")
    assert isinstance(env, Maze) and env.shape == (10, 10) and env.time_limit == 100
    assert env.env_id == "Maze-v0"
    small = horizax.make("Maze-v0", num_rows=4, num_cols=6, time_limit=9)
    assert small.shape == (4, 6) and small.time_limit == 9
    toy = horizax.make("Maze-v0", generator=ToyGenerator())
    assert isinstance(toy.generator, ToyGenerator) and toy.time_limit == 25
    with pytest.raises(ValueError, match="num_rows"):
        horizax.make("Maze-v0", num_rows=0)


def test_protocol_view_has_the_documented_spaces():
    fenv = functional(horizax.make("Maze-v0", num_rows=4, num_cols=6))
    assert isinstance(fenv, MazeFunctional) and isinstance(fenv, FunctionalEnv)
    assert fenv.env_id == "Maze-v0" and fenv.max_steps == 24 and fenv.action_space.n == 4
    spaces = fenv.observation_space.spaces
    assert spaces["walls"].shape == (4, 6) and spaces["walls"].dtype == jnp.bool_
    assert spaces["action_mask"].shape == (4,)
    np.testing.assert_array_equal(spaces["agent_position"].high, [3, 5])
    state, step = jax.jit(fenv.reset)(jax.random.PRNGKey(0))
    obs = step.observation
    assert obs["agent_position"].dtype == jnp.int32 and obs["agent_position"].shape == (2,)
    np.testing.assert_array_equal(obs["agent_position"], np.stack(state.agent_position))
    assert obs["step_count"].shape == () and obs["step_count"].dtype == jnp.int32
    assert bool(fenv.observation_space.contains(obs))
    assert float(step.reward) == 0.0 and not bool(step.terminated | step.truncated)


def test_flags_split_termination_from_truncation():
    fenv = MazeFunctional(Maze(ToyGenerator()))
    step_fn = jax.jit(fenv.step)
    key = jax.random.PRNGKey(0)
    state, _ = fenv.reset(key)
    for action in TOY_PATH:
        state, step = step_fn(key, state, jnp.int32(action))
    assert bool(step.terminated) and not bool(step.truncated) and float(step.reward) == 1.0
    short = fenv.replace(max_steps=2)
    assert short.max_steps == 2 and short.env.time_limit == 2
    state, _ = short.reset(key)
    for _ in range(2):
        state, step = short.step(key, state, jnp.int32(RIGHT))
    assert bool(step.truncated) and not bool(step.terminated) and float(step.reward) == 0.0


def test_render_is_a_numpy_rgb_frame_with_the_documented_colours():
    fenv = MazeFunctional(Maze(ToyGenerator()))
    state, _ = fenv.reset(jax.random.PRNGKey(0))
    frame = fenv.render(state)
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.shape == (80, 80, 3)
    np.testing.assert_array_equal(frame[8, 8], [0, 200, 0])  # agent at (0, 0)
    np.testing.assert_array_equal(frame[8, 4 * 16 + 8], [220, 0, 0])  # target at (0, 4)
    np.testing.assert_array_equal(frame[8, 16 + 8], [0, 0, 0])  # wall at (0, 1)
    np.testing.assert_array_equal(frame[4 * 16 + 8, 8], [255, 255, 255])  # floor at (4, 0)
    with pytest.raises(ValueError, match="unbatched"):
        fenv.render(jax.tree.map(lambda x: jnp.stack([x, x]), state))


def test_check_env_passes_on_the_maze_and_catches_a_broken_one():
    # check_env routes non-grid environments through check_functional (the protocol view).
    check_env(Maze(RandomGenerator(5, 6)))

    class NeverTruncates(MazeFunctional):
        def step(self, key, state, action):
            state, step = super().step(key, state, action)
            return state, step.replace(truncated=jnp.zeros_like(step.truncated))

        def replace(self, **changes):
            return NeverTruncates(super().replace(**changes).env)

    with pytest.raises(AssertionError, match="time limit did not end"):
        check_env(NeverTruncates(Maze(RandomGenerator(5, 6))))


def test_bool_box_samples_both_values_and_respects_fixed_bounds():
    # spaces.Box accepts bool (walls, masks): samples are bool and inside the bounds.
    free = Box(False, True, (1000,), jnp.bool_)
    sample = free.sample(jax.random.PRNGKey(0))
    assert sample.dtype == jnp.bool_ and 300 < int(sample.sum()) < 700
    assert bool(free.contains(sample))
    fixed = Box(np.array([True, False]), np.array([True, False]), (2,), jnp.bool_)
    np.testing.assert_array_equal(fixed.sample(jax.random.PRNGKey(1)), [True, False])
    assert not bool(fixed.contains(jnp.array([False, False])))
