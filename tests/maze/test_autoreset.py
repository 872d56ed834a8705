"""Autoreset helpers: a LAST step carries the next episode's state and first observation,
the terminal observation stays in extras, and the vmapped variant equals per-env runs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.maze import AutoReset, Maze, RandomGenerator, StepType, ToyGenerator, VmapAutoReset

UP, RIGHT, DOWN, LEFT = range(4)
TOY_PATH = [DOWN, DOWN, DOWN, RIGHT, RIGHT, UP, UP, UP, RIGHT, RIGHT]


def _pos(position):
    return int(position.row), int(position.col)


def test_truncation_starts_a_new_episode_and_keeps_the_terminal_observation():
    env = AutoReset(Maze(ToyGenerator(), time_limit=3))
    step = jax.jit(env.step)
    state, ts = env.reset(jax.random.PRNGKey(0))
    assert _pos(ts.extras["next_obs"].agent_position) == (0, 0)
    state, _ = step(state, jnp.int32(DOWN))
    for action in (DOWN, RIGHT):
        state, ts = step(state, jnp.int32(action))
    assert int(ts.step_type) == StepType.LAST and float(ts.discount) == 1.0
    # The state and observation belong to the new episode ...
    assert int(state.step_count) == 0 and _pos(state.agent_position) == (0, 0)
    assert int(ts.observation.step_count) == 0 and _pos(ts.observation.agent_position) == (0, 0)
    # ... and the last observation of the old one is kept for bootstrapping.
    terminal = ts.extras["next_obs"]
    assert int(terminal.step_count) == 3 and _pos(terminal.agent_position) == (2, 0)
    # The next step is an ordinary MID step of the new episode.
    state, ts = step(state, jnp.int32(DOWN))
    assert int(ts.step_type) == StepType.MID and int(state.step_count) == 1


def test_termination_keeps_reward_and_zero_discount():
    env = AutoReset(Maze(ToyGenerator()))
    step = jax.jit(env.step)
    state, ts = env.reset(jax.random.PRNGKey(0))
    for action in TOY_PATH:
        state, ts = step(state, jnp.int32(action))
        if action != TOY_PATH[-1] or int(ts.step_type) != StepType.LAST:
            np.testing.assert_array_equal(ts.extras["next_obs"].step_count, state.step_count)
    assert float(ts.reward) == 1.0 and float(ts.discount) == 0.0
    assert _pos(ts.extras["next_obs"].agent_position) == (0, 4)
    assert _pos(ts.observation.agent_position) == (0, 0)


def test_the_next_maze_is_drawn_from_the_state_key():
    base = Maze(RandomGenerator(6, 6), time_limit=2)
    env = AutoReset(base)
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(3))
    old_key = state.key
    step = jax.jit(env.step)
    for _ in range(2):
        state, ts = step(state, jnp.int32(LEFT))
    assert bool(ts.last())
    # jumanji's AutoResetWrapper draws the next episode from split(state.key)[0].
    expected, _ = jax.jit(base.reset)(jax.random.split(old_key)[0])
    for x, y in zip(jax.tree.leaves(state), jax.tree.leaves(expected), strict=True):
        np.testing.assert_array_equal(x, y)


def _run(env, states, actions):
    def body(states, action):
        states, ts = env.step(states, action)
        return states, (states, ts)

    return jax.lax.scan(body, states, actions)[1]


def test_vmapped_autoreset_equals_per_environment_autoreset():
    base = Maze(RandomGenerator(5, 6), time_limit=4)
    batch, steps = 6, 14
    keys = jax.random.split(jax.random.PRNGKey(1), batch)
    actions = jax.random.randint(jax.random.PRNGKey(2), (steps, batch), 0, 4)
    vmapped = VmapAutoReset(base)
    together = jax.jit(lambda k, a: _run(vmapped, vmapped.reset(k)[0], a))(keys, actions)
    single = AutoReset(base)
    run_single = jax.jit(lambda k, a: _run(single, single.reset(k)[0], a))
    for i in range(batch):
        alone = run_single(keys[i], actions[:, i])
        for x, y in zip(jax.tree.leaves(together), jax.tree.leaves(alone), strict=True):
            np.testing.assert_array_equal(np.asarray(x)[:, i], y)
    assert np.asarray(together[1].last()).sum() >= batch * 3  # several resets happened


def test_only_finished_environments_get_a_new_maze():
    env = VmapAutoReset(Maze(RandomGenerator(6, 6), time_limit=10))
    states, _ = jax.jit(env.reset)(jax.random.split(jax.random.PRNGKey(5), 4))
    # Environment 2 is on its last step; the others are far from the limit.
    states = states.replace(step_count=jnp.array([0, 3, 9, 1], jnp.int32))
    new, ts = jax.jit(env.step)(states, jnp.zeros(4, jnp.int32))
    np.testing.assert_array_equal(ts.last(), [False, False, True, False])
    for i in (0, 1, 3):
        np.testing.assert_array_equal(new.walls[i], states.walls[i])
    assert not np.array_equal(new.walls[2], states.walls[2])
    np.testing.assert_array_equal(new.step_count, [1, 4, 0, 2])


def test_vmapped_autoreset_checks_concrete_actions():
    env = VmapAutoReset(Maze(RandomGenerator(4, 4)))
    states, _ = jax.jit(env.reset)(jax.random.split(jax.random.PRNGKey(0), 3))
    with pytest.raises(ValueError, match="action"):
        env.step(states, jnp.array([0, 4, 1]))
    with pytest.raises(ValueError, match="action"):
        env.step(states, jnp.int32(1))


def test_wrappers_expose_the_environment():
    base = Maze(RandomGenerator(4, 5))
    env = VmapAutoReset(base)
    assert env.unwrapped is base and env.observation_spec is base.observation_spec
    assert env.time_limit == 20 and env.num_cols == 5
