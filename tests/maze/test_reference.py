"""Differential tests against jumanji 1.1.2's Maze: the reference drives the same actions.

Everything must match (positions, action masks, rewards, step types, the generated mazes,
autoreset) except one documented difference: a time-limit LAST step has discount 1 here
(truncation) where jumanji reports 0 (termination).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.maze import (
    JumanjiRandomGenerator,
    Maze,
    Position,
    RandomGenerator,
    State,
    ToyGenerator,
    VmapAutoReset,
)

jumanji = pytest.importorskip("jumanji")

from jumanji.environments import Maze as JumanjiMaze  # noqa: E402
from jumanji.environments.routing.maze import generator as jgen  # noqa: E402
from jumanji.wrappers import VmapAutoResetWrapper  # noqa: E402

pytestmark = pytest.mark.reference

SIZES = [(10, 10), (11, 7), (7, 11), (2, 3), (6, 1)]


def _from_jumanji(state) -> State:
    """A jumanji Maze state injected into horizax."""
    return State(
        agent_position=Position(*state.agent_position),
        target_position=Position(*state.target_position),
        walls=state.walls,
        action_mask=state.action_mask,
        step_count=state.step_count,
        key=state.key,
    )


def _trajectory(env, state, actions):
    def body(state, action):
        state, ts = env.step(state, action)
        out = (
            jnp.stack(state.agent_position),
            state.action_mask,
            ts.reward,
            ts.step_type.astype(jnp.int32),
            ts.discount,
            state.step_count,
        )
        return state, out

    return jax.lax.scan(body, state, actions)[1]


def _assert_same_dynamics(ours, theirs, time_limit):
    pos, mask, reward, step_type, discount, count = (np.asarray(x) for x in ours)
    j_pos, j_mask, j_reward, j_step_type, j_discount, j_count = (np.asarray(x) for x in theirs)
    np.testing.assert_array_equal(pos, j_pos, "agent positions differ")
    np.testing.assert_array_equal(mask, j_mask, "action masks differ")
    np.testing.assert_array_equal(reward, j_reward, "rewards differ")
    np.testing.assert_array_equal(step_type, j_step_type, "step types differ")
    np.testing.assert_array_equal(count, j_count, "step counts differ")
    # The one difference: LAST at the time limit without reaching the target is a
    # truncation here (discount 1), a termination in jumanji (discount 0).
    truncation = (step_type == 2) & (count >= time_limit) & (reward == 0) & mask.any(-1)
    np.testing.assert_array_equal(discount[~truncation], j_discount[~truncation])
    assert (discount[truncation] == 1).all() and (j_discount[truncation] == 0).all()
    return int(truncation.sum()), int(((step_type == 2) & (discount == 0)).sum())


def test_toy_maze_action_sequences_match_jumanji():
    ours, theirs = Maze(ToyGenerator()), JumanjiMaze(jgen.ToyGenerator())
    actions = jax.random.randint(jax.random.PRNGKey(0), (64, 80), 0, 4)
    # Half the sequences start with the shortest path, so the target is reached too.
    path = jnp.array([2, 2, 2, 1, 1, 0, 0, 0, 1, 1])
    actions = actions.at[::2, : len(path)].set(path)
    key = jax.random.PRNGKey(1)

    def run(env, state_fn):
        state = state_fn(env.reset(key)[0])
        return jax.jit(jax.vmap(lambda a: _trajectory(env, state, a)))(actions)

    truncations, terminations = _assert_same_dynamics(
        run(ours, lambda s: s), run(theirs, lambda s: s), ours.time_limit
    )
    assert truncations > 0 and terminations > 0  # both kinds of ending were compared


@pytest.mark.parametrize("shape", [(10, 10), (11, 7), (5, 5)])
def test_states_from_jumanjis_generator_give_the_same_dynamics(shape):
    theirs = JumanjiMaze(jgen.RandomGenerator(*shape))
    ours = Maze(RandomGenerator(*shape))
    keys = jax.random.split(jax.random.PRNGKey(2), 96)
    actions = jax.random.randint(jax.random.PRNGKey(3), (96, ours.time_limit + 20), 0, 4)
    j_states, _ = jax.jit(jax.vmap(theirs.reset))(keys)
    injected = _from_jumanji(j_states)
    mine = jax.jit(jax.vmap(lambda s, a: _trajectory(ours, s, a)))(injected, actions)
    ref = jax.jit(jax.vmap(lambda s, a: _trajectory(theirs, s, a)))(j_states, actions)
    truncations, terminations = _assert_same_dynamics(mine, ref, ours.time_limit)
    assert truncations > 0 and terminations > 0


@pytest.mark.parametrize("shape", SIZES)
def test_jumanji_random_generator_draws_jumanjis_mazes_key_for_key(shape):
    keys = jax.random.split(jax.random.PRNGKey(4), 400)
    mine = jax.jit(jax.vmap(JumanjiRandomGenerator(*shape)))(keys)
    ref = jax.jit(jax.vmap(jgen.RandomGenerator(*shape)))(keys)
    np.testing.assert_array_equal(mine.walls, ref.walls)
    np.testing.assert_array_equal(np.stack(mine.agent_position), np.stack(ref.agent_position))
    np.testing.assert_array_equal(np.stack(mine.target_position), np.stack(ref.target_position))
    np.testing.assert_array_equal(mine.key, ref.key)


def test_vmapped_autoreset_matches_jumanjis_wrapper():
    shape, batch, steps = (6, 6), 32, 150
    ours = VmapAutoReset(Maze(JumanjiRandomGenerator(*shape)))
    theirs = VmapAutoResetWrapper(JumanjiMaze(jgen.RandomGenerator(*shape)), True)
    keys = jax.random.split(jax.random.PRNGKey(5), batch)
    actions = jax.random.randint(jax.random.PRNGKey(6), (steps, batch), 0, 4)

    def run(env):
        def body(state, action):
            state, ts = env.step(state, action)
            nxt = ts.extras["next_obs"]
            out = (state.walls, jnp.stack(state.agent_position), ts.step_type, ts.reward)
            return state, (*out, jnp.stack(nxt.agent_position), nxt.step_count, ts.discount)

        return jax.jit(lambda k: jax.lax.scan(body, env.reset(k)[0], actions)[1])(keys)

    mine, ref = run(ours), run(theirs)
    for name, a, b in zip(("walls", "position", "step type", "reward"), mine, ref, strict=False):
        np.testing.assert_array_equal(a, b, f"{name} differs under autoreset")
    np.testing.assert_array_equal(mine[4], ref[4], "terminal observations differ")
    np.testing.assert_array_equal(mine[5], ref[5], "terminal step counts differ")
    last = np.asarray(mine[2]) == 2
    assert last.sum() >= batch, "too few episodes ended to compare resets"
    truncated = last & (np.asarray(mine[5]) >= ours.time_limit) & (np.asarray(mine[3]) == 0)
    np.testing.assert_array_equal(np.asarray(mine[6])[~truncated], np.asarray(ref[6])[~truncated])
    assert truncated.any() and (np.asarray(mine[6])[truncated] == 1).all()
