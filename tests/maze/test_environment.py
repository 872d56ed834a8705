"""Maze dynamics at the boundaries: masks, no-ops, reward, termination vs truncation, specs,
tracing, determinism and argument errors."""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.maze import Maze, Position, RandomGenerator, State, StepType, ToyGenerator
from horizax.maze.environment import action_mask

UP, RIGHT, DOWN, LEFT = range(4)
# Shortest path from (0, 0) to the target (0, 4) in the toy maze (10 steps).
TOY_PATH = [DOWN, DOWN, DOWN, RIGHT, RIGHT, UP, UP, UP, RIGHT, RIGHT]
KEY = jax.random.PRNGKey(0)


@functools.cache
def jitted(time_limit=None, toy=True):
    env = Maze(ToyGenerator() if toy else RandomGenerator(6, 7), time_limit=time_limit)
    return env, jax.jit(env.reset), jax.jit(env.step)


def _pos(state):
    return int(state.agent_position.row), int(state.agent_position.col)


def test_reset_is_first_with_mask_of_the_start_cell():
    _, reset, _ = jitted()
    state, ts = reset(KEY)
    assert int(ts.step_type) == StepType.FIRST and ts.step_type.dtype == jnp.int8
    assert float(ts.reward) == 0.0 and float(ts.discount) == 1.0
    assert ts.reward.dtype == ts.discount.dtype == jnp.float32
    assert _pos(state) == (0, 0) and int(state.step_count) == 0
    # From (0, 0): Up and Left leave the grid, Right is a wall, Down is free.
    np.testing.assert_array_equal(state.action_mask, [False, False, True, False])
    np.testing.assert_array_equal(ts.observation.action_mask, state.action_mask)
    np.testing.assert_array_equal(ts.observation.walls, state.walls)


@pytest.mark.parametrize("action", [UP, RIGHT, LEFT])
def test_blocked_or_off_grid_move_is_a_noop_that_counts_a_step(action):
    _, reset, step = jitted()
    state, _ = reset(KEY)
    state, ts = step(state, jnp.int32(action))
    assert _pos(state) == (0, 0) and int(state.step_count) == 1
    assert int(ts.step_type) == StepType.MID and float(ts.reward) == 0.0


def test_moves_follow_up_right_down_left():
    _, reset, step = jitted()
    state, _ = reset(KEY)
    state, _ = step(state, jnp.int32(DOWN))
    assert _pos(state) == (1, 0)
    state, _ = step(state, jnp.int32(UP))
    assert _pos(state) == (0, 0)
    for action in (DOWN, DOWN, DOWN, RIGHT):
        state, _ = step(state, jnp.int32(action))
    assert _pos(state) == (3, 1)
    state, _ = step(state, jnp.int32(LEFT))
    assert _pos(state) == (3, 0)


def test_reaching_the_target_terminates_with_reward_one_and_discount_zero():
    _, reset, step = jitted()
    state, _ = reset(KEY)
    rewards, types = [], []
    for action in TOY_PATH:
        state, ts = step(state, jnp.int32(action))
        rewards.append(float(ts.reward))
        types.append(int(ts.step_type))
    assert _pos(state) == (0, 4)
    assert rewards == [0.0] * 9 + [1.0]
    assert types == [StepType.MID] * 9 + [StepType.LAST]
    assert float(ts.discount) == 0.0 and bool(ts.terminated()) and not bool(ts.truncated())


def test_time_limit_truncates_with_discount_one():
    _, reset, step = jitted(time_limit=3)
    state, _ = reset(KEY)
    for i in range(3):
        state, ts = step(state, jnp.int32(RIGHT))  # blocked: the agent never moves
        expected = StepType.LAST if i == 2 else StepType.MID
        assert int(ts.step_type) == expected, i
    assert float(ts.discount) == 1.0 and float(ts.reward) == 0.0
    assert bool(ts.truncated()) and not bool(ts.terminated())
    # Stepping on after LAST continues the episode; past the limit every step is truncated.
    state, ts = step(state, jnp.int32(DOWN))
    assert _pos(state) == (1, 0) and int(state.step_count) == 4
    assert int(ts.step_type) == StepType.LAST and float(ts.discount) == 1.0


def test_termination_wins_when_the_target_is_reached_on_the_limit_step():
    _, reset, step = jitted(time_limit=len(TOY_PATH))
    state, _ = reset(KEY)
    for action in TOY_PATH:
        state, ts = step(state, jnp.int32(action))
    assert int(state.step_count) == len(TOY_PATH)
    assert int(ts.step_type) == StepType.LAST and float(ts.discount) == 0.0
    assert float(ts.reward) == 1.0 and bool(ts.terminated())


def test_an_agent_with_no_move_left_terminates():
    # jumanji ends the episode when the action mask is empty (an absorbing state).
    _, _, step = jitted()
    walls = jnp.ones((5, 5), bool).at[2, 2].set(False).at[0, 0].set(False)
    agent, target = Position(jnp.int32(2), jnp.int32(2)), Position(jnp.int32(0), jnp.int32(0))
    state = State(agent, target, walls, action_mask(walls, agent), jnp.int32(0), KEY)
    assert not np.asarray(state.action_mask).any()
    state, ts = step(state, jnp.int32(UP))
    assert int(ts.step_type) == StepType.LAST and float(ts.discount) == 0.0
    assert float(ts.reward) == 0.0


@pytest.mark.parametrize("action", [-1, 4, 7, 1000])
def test_out_of_range_actions_inside_jit_are_noops_that_count_a_step(action):
    _, reset, step = jitted()
    state, _ = reset(KEY)
    state, _ = step(state, jnp.int32(DOWN))  # (1, 0): Up and Down are both open
    moved, ts = step(state, jnp.int32(action))
    assert _pos(moved) == (1, 0) and int(moved.step_count) == 2
    assert int(ts.step_type) == StepType.MID


def test_concrete_bad_actions_raise_naming_action():
    env = Maze(ToyGenerator())
    state, _ = env.reset(KEY)
    for bad in (4, -1, np.int32(9)):
        with pytest.raises(ValueError, match="action"):
            env.step(state, bad)
    with pytest.raises(TypeError, match="action"):
        env.step(state, True)
    with pytest.raises(TypeError, match="action"):
        env.step(state, jnp.float32(1.0))
    with pytest.raises(ValueError, match="action"):
        env.step(state, jnp.zeros(2, jnp.int32))
    with pytest.raises(ValueError, match="action"):  # wrong shape fails at trace time
        jax.jit(env.step)(state, jnp.zeros((1,), jnp.int32))
    # Python ints and numpy scalars in range are accepted.
    assert _pos(env.step(state, 2)[0]) == (1, 0)
    assert _pos(env.step(state, np.int64(2))[0]) == (1, 0)


def test_time_limit_default_and_validation():
    assert Maze(RandomGenerator(6, 7)).time_limit == 42
    assert Maze().time_limit == 100 and Maze().shape == (10, 10)
    assert Maze(time_limit=5).time_limit == 5
    for bad in (0, -1, True, 2.5, "3"):
        with pytest.raises(ValueError, match="time_limit"):
            Maze(time_limit=bad)
    with pytest.raises(TypeError, match="Generator"):
        Maze(generator="toy")


def test_env_is_immutable_configuration():
    env = Maze(ToyGenerator(), time_limit=7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        env.time_limit = 3
    assert env.replace(time_limit=3).time_limit == 3 and env.time_limit == 7
    assert "time_limit=7" in repr(env) and "ToyGenerator" in repr(env)


def test_specs_validate_a_random_episode_at_every_step():
    env, reset, step = jitted(toy=False)
    state, ts = reset(jax.random.PRNGKey(4))
    env.observation_spec.validate(ts.observation)
    actions = jax.random.randint(jax.random.PRNGKey(5), (env.time_limit,), 0, 4)
    for action in actions:
        action = env.action_spec.validate(action)
        state, ts = step(state, action)
        env.observation_spec.validate(ts.observation)
        env.reward_spec.validate(ts.reward)
        env.discount_spec.validate(ts.discount)
        if bool(ts.last()):
            break
    assert bool(ts.last()), "the episode must end within the time limit"
    # A spec catches a position outside the grid.
    bad = ts.observation._replace(agent_position=Position(jnp.int32(6), jnp.int32(0)))
    with pytest.raises(ValueError, match="row_coordinate"):
        env.observation_spec.validate(bad)
    # generate_value gives a conforming observation and a valid action.
    env.observation_spec.validate(env.observation_spec.generate_value())
    assert int(env.action_spec.generate_value()) == 0


def test_each_jitted_function_traces_once():
    env = Maze(RandomGenerator(6, 7))
    traces = {"reset": 0, "step": 0}

    def counted(name, fn):
        def wrapper(*args):
            traces[name] += 1
            return fn(*args)

        return jax.jit(wrapper)

    reset, step = counted("reset", env.reset), counted("step", env.step)
    for i in range(4):
        state, _ = reset(jax.random.PRNGKey(i))
        for a in range(4):
            state, _ = step(state, jnp.int32(a))
    assert traces == {"reset": 1, "step": 1}


def _rollout(env, key, num_steps=60):
    reset_key, action_key = jax.random.split(key)
    state, first = env.reset(reset_key)
    actions = jax.random.randint(action_key, (num_steps,), 0, 4)

    def body(state, action):
        state, ts = env.step(state, action)
        return state, (state, ts)

    return first, jax.lax.scan(body, state, actions)[1]


def test_scan_rollouts_are_deterministic_per_key_and_vmap_matches():
    env = Maze(RandomGenerator(6, 7), time_limit=20)
    rollout = jax.jit(lambda k: _rollout(env, k))
    keys = jax.random.split(jax.random.PRNGKey(11), 3)
    a, b = rollout(keys[1]), rollout(keys[1])
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_array_equal(x, y)
    batched = jax.jit(jax.vmap(lambda k: _rollout(env, k)))(keys)
    for x, y in zip(jax.tree.leaves(batched), jax.tree.leaves(a), strict=True):
        np.testing.assert_array_equal(np.asarray(x)[1], y)
    other = rollout(keys[2])
    assert not np.array_equal(other[0].observation.walls, a[0].observation.walls)


def test_equal_configurations_compare_equal_so_compiles_are_shared():
    import horizax
    from horizax.maze import RandomGenerator, ToyGenerator

    assert horizax.make("Maze-v0") == horizax.make("Maze-v0")
    assert hash(horizax.make("Maze-v0")) == hash(horizax.make("Maze-v0"))
    assert horizax.make("Maze-v0") != horizax.make("Maze-v0", num_rows=5)
    assert horizax.make("Maze-v0") != horizax.make("Maze-v0", time_limit=7)
    assert RandomGenerator(5, 5) != ToyGenerator()
