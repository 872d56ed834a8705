"""The three autoreset modes over the protocol: per-step semantics, keys, batching, purity."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.core import episode_keys
from horizax.core.episode import (
    AutoresetMode,
    Episode,
    as_mode,
    autoreset_step,
    restart_where,
    start_episode,
    step_episode,
    step_key,
)
from tests.core.toy_protocol import Walk

NEXT, SAME, OFF = AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED
KEY = jax.random.PRNGKey(7)


def assert_trees_equal(a, b, what):
    assert jax.tree.structure(a) == jax.tree.structure(b), what
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=what)


def walk_to_goal(fenv, mode, key=KEY):
    """Steps right until the episode ends; returns the episode before the ending step,
    that step's inputs/outputs and the protocol's own result for the same step."""
    step_fn = jax.jit(autoreset_step(fenv, mode))
    episode, _ = start_episode(fenv, key)
    while True:
        plain = fenv.step(step_key(episode.key, episode.t), episode.state, jnp.int32(1))
        after, step, final = step_fn(episode, jnp.int32(1))
        if bool(plain[1].done):
            return episode, after, step, final, plain
        episode = after


def test_mode_values_are_gymnasiums_and_conversions():
    gym_vector = pytest.importorskip("gymnasium.vector")
    for mode in AutoresetMode:
        gym_mode = gym_vector.AutoresetMode(mode.value)
        assert as_mode(gym_mode) is mode, "Gymnasium's enum must convert by value"
        assert as_mode(mode.value) is mode and as_mode(mode) is mode
    with pytest.raises(ValueError, match="autoreset_mode must be one of"):
        as_mode("sometimes")


def test_next_step_returns_terminal_then_resets_on_the_following_step():
    fenv = Walk(max_steps=20)
    before, after, step, final, plain = walk_to_goal(fenv, NEXT)
    assert final is None
    # The ending step is the protocol's own step: terminal observation, reward, flags.
    assert bool(step.terminated) and not bool(step.truncated)
    assert_trees_equal(step, plain[1], "NEXT_STEP must not alter the step that ends an episode")
    assert bool(after.done) and after.key.tolist() == before.key.tolist()
    # The following step ignores its action and starts the next episode from the next key.
    nxt, first, _ = jax.jit(autoreset_step(fenv, NEXT))(after, jnp.int32(2))
    new_key = episode_keys.next_episode_key(before.key)
    _, expected = fenv.reset(new_key)
    assert_trees_equal(first, expected, "the reset step must be the new episode's first step")
    assert float(first.reward) == 0.0 and not bool(first.terminated | first.truncated)
    assert nxt.key.tolist() == new_key.tolist() and int(nxt.t) == 0 and not bool(nxt.done)


def test_same_step_resets_at_once_and_keeps_the_terminal_observation():
    fenv = Walk(max_steps=20)
    before, after, step, final, plain = walk_to_goal(fenv, SAME)
    new_key = episode_keys.next_episode_key(before.key)
    _, first = fenv.reset(new_key)
    assert_trees_equal(step.observation, first.observation, "SAME_STEP returns the new first obs")
    assert_trees_equal(step.info, first.info, "SAME_STEP's info is the reset's (Gymnasium's)")
    assert float(step.reward) == float(plain[1].reward) == 1.0, "the ending step's reward"
    assert bool(step.terminated) and not bool(step.truncated), "the ending step's flags"
    assert bool(final.mask), "the mask marks the environment that reset"
    assert_trees_equal(final.observation, plain[1].observation, "terminal observation kept")
    assert_trees_equal(final.info, plain[1].info, "terminal info kept")
    assert after.key.tolist() == new_key.tolist() and int(after.t) == 0 and not bool(after.done)
    # Mid-episode steps are untouched and their mask is off.
    episode, _ = start_episode(fenv, KEY)
    _, mid, mid_final = step_episode(fenv, SAME, episode, jnp.int32(0))
    _, expected = fenv.step(step_key(KEY, 0), episode.state, jnp.int32(0))
    assert_trees_equal(mid, expected, "a step that ends nothing is the protocol's step")
    assert not bool(mid_final.mask)


def test_disabled_never_resets_and_restart_where_resets_only_masked():
    fenv = Walk(max_steps=3)
    episode, _ = start_episode(fenv, KEY)
    step_fn = jax.jit(autoreset_step(fenv, OFF))
    for t in range(5):
        episode, step, final = step_fn(episode, jnp.int32(0))
        assert final is None
        assert bool(step.truncated) == (t + 1 >= 3), "the time limit truncates, no reset"
    assert int(episode.t) == 5 and bool(episode.done) and episode.key.tolist() == KEY.tolist()
    new_key = jax.random.PRNGKey(99)
    kept, zeros = restart_where(fenv, episode, new_key, False)
    assert_trees_equal(kept, episode, "an unmasked environment keeps its episode")
    assert all(not np.any(leaf) for leaf in jax.tree.leaves(zeros)), "zeros where unmasked"
    fresh, first = restart_where(fenv, episode, new_key, True)
    expected_episode, expected_first = start_episode(fenv, new_key)
    assert_trees_equal(fresh, expected_episode, "a masked environment starts from the key")
    assert_trees_equal(first, expected_first, "and returns the new episode's first step")


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_vmapped_step_equals_the_per_environment_rule(mode):
    fenv, batch = Walk(max_steps=4), 5
    keys = jax.random.split(jax.random.PRNGKey(1), batch)
    actions = np.random.default_rng(0).integers(0, 3, (12, batch)).astype(np.int32)
    one = jax.jit(autoreset_step(fenv, mode))
    many = jax.jit(jax.vmap(autoreset_step(fenv, mode)))
    restart_one = jax.jit(lambda e, k, m: restart_where(fenv, e, k, m))
    restart_many = jax.jit(jax.vmap(lambda e, k, m: restart_where(fenv, e, k, m)))
    episodes, _ = jax.vmap(lambda k: start_episode(fenv, k))(keys)
    singles = [start_episode(fenv, k)[0] for k in keys]
    for t in range(len(actions)):
        if mode is OFF:  # DISABLED: restart the finished ones, as an adapter would
            mask = episodes.done
            new_keys = episode_keys.next_episode_key(episodes.key)
            episodes, _ = restart_many(episodes, new_keys, mask)
            singles = [
                restart_one(e, k, m)[0] for e, k, m in zip(singles, new_keys, mask, strict=True)
            ]
        episodes, steps, finals = many(episodes, actions[t])
        for i in range(batch):
            singles[i], step, final = one(singles[i], actions[t, i])
            pick = lambda tree, i=i: jax.tree.map(lambda x: x[i], tree)  # noqa: E731
            assert_trees_equal(pick(steps), step, f"{mode}: step {t}, env {i}")
            assert_trees_equal(pick(finals), final, f"{mode}: final {t}, env {i}")
            assert_trees_equal(pick(episodes), singles[i], f"{mode}: episode {t}, env {i}")


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_scan_traces_once_and_is_deterministic(mode):
    fenv, batch = Walk(max_steps=3), 4
    traces = []

    def body(episodes, action):
        traces.append(1)
        episodes, step, _ = jax.vmap(autoreset_step(fenv, mode))(episodes, action)
        return episodes, (step.reward, step.done)

    @jax.jit
    def run(key):
        episodes, _ = jax.vmap(lambda k: start_episode(fenv, k))(jax.random.split(key, batch))
        actions = jnp.ones((10, batch), jnp.int32)
        return jax.lax.scan(body, episodes, actions)[1]

    first, second = run(KEY), run(KEY)
    assert len(traces) == 1, "the step must trace once inside scan"
    assert_trees_equal(first, second, "a run is a pure function of its key")
    rewards = np.asarray(first[0])
    assert np.any(rewards != rewards[0, 0]), "the step key must reach the protocol (noise)"


def test_next_step_on_the_grid_equals_the_grids_own_autoreset():
    """The grid's built-in autoreset draws the next episode from `next_episode_key`, as
    NEXT_STEP does, so both produce the same stream of observations and step types."""
    env = horizax.make("MiniGrid-Empty-Random-5x5-v0", max_steps=4)
    fenv = env.as_functional()
    step_fn = jax.jit(autoreset_step(fenv, NEXT))
    grid_step = jax.jit(env.step)
    episode, _ = start_episode(fenv, KEY)
    timestep = env.reset(KEY)
    for t, action in enumerate([2, 1, 0, 2, 2, 0, 1, 2, 2, 2, 1, 2, 2, 2, 2]):
        episode, step, _ = step_fn(episode, jnp.int32(action))
        timestep = grid_step(timestep, jnp.int32(action))
        what = f"step {t}"
        np.testing.assert_array_equal(step.observation["image"], timestep.observation, what)
        np.testing.assert_array_equal(step.observation["mission"], timestep.state.mission, what)
        assert int(step.observation["direction"]) == int(timestep.state.agent_dir), what
        assert bool(step.truncated) == bool(timestep.is_truncation()), what
        assert bool(step.terminated) == bool(timestep.is_termination()), what
        assert float(step.reward) == float(timestep.reward), what


def test_modes_that_reset_need_the_same_pytree_from_reset_and_step():
    fenv = Walk(extra_step_info=True)
    episode, _ = start_episode(fenv, KEY)
    for mode in (NEXT, SAME):
        with pytest.raises(TypeError, match="same \\(state, Step\\) pytree"):
            step_episode(fenv, mode, episode, jnp.int32(0))
    _, step, _ = step_episode(fenv, OFF, episode, jnp.int32(0))  # DISABLED never selects
    assert "extra" in step.info


def test_step_keys_differ_per_step_and_from_the_episode_streams():
    keys = {tuple(np.asarray(step_key(KEY, t)).tolist()) for t in range(4)}
    assert len(keys) == 4, "each step of an episode gets its own key"
    others = {
        tuple(np.asarray(k).tolist())
        for k in (KEY, episode_keys.next_episode_key(KEY), episode_keys.dynamics_key(KEY))
    }
    assert not keys & others, "step keys must not reuse the layout or dynamics streams"
    typed = jax.random.key(3)
    assert jnp.issubdtype(step_key(typed, 0).dtype, jax.dtypes.prng_key), "typed keys stay typed"


def test_episode_is_a_pytree():
    episode = Episode(state={"a": jnp.zeros(2)}, key=KEY, t=jnp.int32(0), done=jnp.bool_(False))
    assert len(jax.tree.leaves(episode)) == 4


def test_batched_functions_equal_the_single_ones_env_by_env():
    from horizax.core import episode as engine

    fenv = horizax.make("Maze-v0", num_rows=4, num_cols=4, time_limit=3).as_functional()
    keys = jax.random.split(KEY, 3)
    episodes, first = jax.jit(lambda k: engine.start_episodes(fenv, k))(keys)
    actions = jnp.array([0, 1, 2], jnp.int32)
    stepped = jax.jit(lambda e, a: engine.step_episodes(fenv, NEXT, e, a))(episodes, actions)
    next_keys = engine.next_episode_keys(fenv, episodes)
    mask = jnp.array([True, False, True])
    restarted = engine.restart_episodes_where(fenv, episodes, next_keys, mask)
    for i in range(3):
        single, single_first = start_episode(fenv, keys[i])
        assert_trees_equal(jax.tree.map(lambda x, i=i: x[i], episodes), single, f"start {i}")
        assert_trees_equal(jax.tree.map(lambda x, i=i: x[i], first), single_first, f"first {i}")
        one = step_episode(fenv, NEXT, single, actions[i])
        assert_trees_equal(jax.tree.map(lambda x, i=i: x[i], stepped), one, f"step {i}")
        key = engine.next_episode_key(fenv, single)
        np.testing.assert_array_equal(next_keys[i], key)
        again = restart_where(fenv, single, key, mask[i])
        assert_trees_equal(jax.tree.map(lambda x, i=i: x[i], restarted), again, f"restart {i}")


class _PlainView:
    """A staged family's protocol view without its stages: the engine's plain path."""

    def __init__(self, fenv):
        self.fenv = fenv
        self.observation_space = fenv.observation_space
        self.action_space = fenv.action_space
        self.max_steps = fenv.max_steps
        self.env_id = fenv.env_id

    def reset(self, key):
        return self.fenv.reset(key)

    def step(self, key, state, action):
        return self.fenv.step(key, state, action)


@pytest.mark.parametrize("env_id", ["MiniGrid-Dynamic-Obstacles-5x5-v0", "MiniGrid-MemoryS7-v0"])
def test_staged_next_step_equals_the_plain_path_batched(env_id):
    """Selecting before observing (the staged path) changes no state, step or key, under
    `vmap` with the sparse reset (and with Memory's plain select, ``autoreset_rounds=False``)."""
    from horizax.core import episode as engine
    from horizax.core.staged import is_staged

    staged = horizax.make(env_id, max_steps=5).as_functional()
    plain = _PlainView(staged)
    assert is_staged(staged) and not is_staged(plain)
    actions = jax.random.randint(KEY, (24, 8), 0, staged.action_space.n)

    def run(fenv):
        def body(episodes, action):
            episodes, step, _ = engine.step_episodes(fenv, NEXT, episodes, action)
            return episodes, (episodes, step)

        episodes, _ = engine.start_episodes(fenv, jax.random.split(KEY, 8))
        return jax.jit(lambda e: jax.lax.scan(body, e, actions))(episodes)[1]

    ran = run(staged)
    assert_trees_equal(ran, run(plain), "staged and plain NEXT_STEP differ")
    assert int(np.asarray(ran[0].done).sum()) >= 8, "episodes must end (and reset) in the run"


@pytest.mark.parametrize(
    "env_id", ["MiniGrid-KeyCorridorS3R2-v0", "Orbital-LadyBanditGuard-v0", "Maze-v0"]
)
def test_start_episodes_in_rounds_equals_vmap_of_start_episode(env_id):
    """`start_episodes` draws in chunks of a round (70 environments: rounds of 2, the last
    padded); every family's first states and steps equal the plain vmap's."""
    from horizax.core import episode as engine

    fenv = horizax.make(env_id).as_functional()
    keys = jax.random.split(KEY, 70)
    chunked = jax.jit(lambda k: engine.start_episodes(fenv, k))(keys)
    plain = jax.jit(jax.vmap(lambda k: start_episode(fenv, k)))(keys)
    assert_trees_equal(chunked, plain, env_id)
